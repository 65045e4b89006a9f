package io.drover.executor.acquire;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.PooledDataSource;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.RecordingHandler;
import io.drover.executor.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Optimistic mode's claims on a real PostgreSQL, through the engine's own pool: a page whose
 * claim fails is claimed not at all. The driver splits a batch of more than 255 statements with
 * a Sync; in auto-commit each part committed on its own, and a claim refused past the 255th left
 * 255 jobs locked for a node that never held them, until their lock expired. A claim refused
 * for its row's own sake is searched out and left out, the others claimed ({@link RefusedRowSearch}).
 */
class OptimisticAcquisitionTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @Test
    void aPageWhoseClaimFailsPastTheDriversSplitLocksNoJob() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(300, RecordingHandler.TYPE, "", 3);
        long refused = jobs.count("select id from {s}.job order by id offset 279 limit 1");
        // A failure of one claim that is no row's own (the server's kind, XX000: not searched
        // out as a refused row), in the batch's second part.
        refuseClaimOf(jobs, refused, "'claim of % failed', old.id using errcode = 'XX000'");
        OptimisticAcquisition optimistic = new OptimisticAcquisition(new JobSql(new Tables(schema)), "n:1",
                Duration.ofSeconds(60), new ExecutorMetrics(new SimpleMeterRegistry()));
        try (AgroalDataSource engine = PooledDataSource.forEngine(TestDatabase.jdbcUrl(), "postgres", "postgres",
                Duration.ofSeconds(30));
             Connection c = engine.getConnection()) {
            assertThatThrownBy(() -> optimistic.acquire(c, 300)).isInstanceOf(SQLException.class);
            assertThat(c.getAutoCommit()).as("the connection as the pool lent it").isTrue();
        }
        assertThat(jobs.count("select count(*) from {s}.job where locked_by = 'n:1'"))
                .as("jobs left locked by a claim that failed").isZero();

        jobs.execute("drop trigger refuse_claim on {s}.job");
        try (AgroalDataSource engine = PooledDataSource.forEngine(TestDatabase.jdbcUrl(), "postgres", "postgres",
                Duration.ofSeconds(30));
             Connection c = engine.getConnection()) {
            assertThat(optimistic.acquire(c, 300).jobs()).as("the page claimed once the refusal ends").hasSize(300);
        }
        assertThat(jobs.count("select count(*) from {s}.job where locked_by = 'n:1'")).isEqualTo(300);
    }

    @Test
    void aClaimRefusedForItsRowIsLeftOutAndTheOthersAreClaimed() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(300, RecordingHandler.TYPE, "", 3);
        long refused = jobs.count("select id from {s}.job order by id offset 279 limit 1");
        refuseClaimOf(jobs, refused, "'claim of % refused', old.id");
        OptimisticAcquisition optimistic = new OptimisticAcquisition(new JobSql(new Tables(schema)), "n:1",
                Duration.ofSeconds(60), new ExecutorMetrics(new SimpleMeterRegistry()));
        try (AgroalDataSource engine = PooledDataSource.forEngine(TestDatabase.jdbcUrl(), "postgres", "postgres",
                Duration.ofSeconds(30));
             Connection c = engine.getConnection()) {
            Acquisition first = optimistic.acquire(c, 300);
            assertThat(first.jobs()).as("every job but the refused one").hasSize(299)
                    .extracting(j -> j.id()).doesNotContain(refused).isSorted();
            assertThat(first.mayHaveMore()).as("a full page: look again").isTrue();
            assertThat(c.getAutoCommit()).as("the connection as the pool lent it").isTrue();
            assertThat(optimistic.leftOut().current()).containsExactly(refused);
            Acquisition second = optimistic.acquire(c, 300);
            assertThat(second.jobs()).as("the refused row, left out: nothing else is due").isEmpty();
        }
        assertThat(jobs.count("select count(*) from {s}.job where locked_by = 'n:1'")).isEqualTo(299);
        assertThat(jobs.count("select count(*) from {s}.job where id = " + refused + " and locked_by is null")).isEqualTo(1);
    }

    /** A trigger refusing the claim of job {@code id}, raising {@code raise} (what follows RAISE EXCEPTION). */
    private static void refuseClaimOf(Jobs jobs, long id, String raise) {
        jobs.execute("create function {s}.refuse_claim() returns trigger language plpgsql as $$ begin"
                + " if new.locked_by is not null and old.locked_by is null and old.id = " + id
                + " then raise exception " + raise + "; end if; return new; end $$");
        jobs.execute("create trigger refuse_claim before update on {s}.job for each row execute function {s}.refuse_claim()");
    }
}
