package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A row the database will not let the sweep recover (a foreign key onto the job table, a
 * trigger): the page it was in failed as a whole, and as the oldest expired lock it headed every
 * later page, so no node recovered a dead node's job again, while health stayed up.
 */
class RefusedRecoveryTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @Test
    void aRowTheDatabaseWillNotLetGoIsLeftOutAndTheOthersAreRecovered() throws Exception {
        Jobs jobs = new Jobs(db, TestDatabase.freshSchema(db));
        jobs.enqueue(4, "any", "", 3);
        jobs.execute("update {s}.job set locked_by = 'gone:1', lock_expires_at = now() - interval '1 minute'");
        // The oldest lock: a job at its third crash, to be moved to dead letters as poison, which
        // an application's table still references.
        jobs.execute("update {s}.job set started_at = now() - interval '3 minutes', crashes = 2, attempts = 1,"
                + " lock_expires_at = now() - interval '2 minutes' where id = (select min(id) from {s}.job)");
        jobs.execute("create table {s}.invoice (job_id bigint references {s}.job (id))");
        jobs.execute("insert into {s}.invoice select min(id) from {s}.job");
        LockMaintenance maintenance = new LockMaintenance(new JobSql(new Tables(jobs.schema())), "node-0:1", "node-0",
                Duration.ofSeconds(10), 3);
        try (Connection c = db.getConnection()) {
            LockMaintenance.Recovered r = maintenance.sweepExpired(c, List.of());
            assertThat(r.unlocked()).as("the others recovered").isEqualTo(3);
            assertThat(r.poisoned()).isZero();
            assertThat(maintenance.sweepExpired(c, List.of()).total()).as("the refused row left out of the next sweep").isZero();
        }
        assertThat(jobs.count("select count(*) from {s}.job where locked_by = 'gone:1'"
                + " and id = (select job_id from {s}.invoice)")).as("the refused row stays as it was").isEqualTo(1);
        assertThat(jobs.count("select count(*) from {s}.job where locked_by is null and suspect")).isEqualTo(3);
        assertThat(jobs.deadLetters()).isZero();
    }

    /** The refused row in a later page: the pages before it, committed, are counted, and the sweep goes on past it. */
    @Test
    void pagesBeforeAndAfterTheRefusedRowAreRecoveredAndCounted() throws Exception {
        Jobs jobs = new Jobs(db, TestDatabase.freshSchema(db));
        jobs.enqueue(2500, "any", "", 3);
        jobs.execute("update {s}.job set locked_by = 'gone:1', lock_expires_at = now() - interval '1 hour' + id * interval '1 ms'");
        jobs.execute("create table {s}.invoice (job_id bigint references {s}.job (id))");
        jobs.execute("insert into {s}.invoice select min(id) + 1499 from {s}.job");
        LockMaintenance maintenance = new LockMaintenance(new JobSql(new Tables(jobs.schema())), "node-0:1", "node-0",
                Duration.ofSeconds(10), 3);
        jobs.execute("create function {s}.refuse() returns trigger language plpgsql as $$ begin"
                + " if exists (select 1 from {s}.invoice where job_id = old.id) then raise exception 'job % is invoiced', old.id; end if;"
                + " return new; end $$");
        jobs.execute("create trigger refuse before update on {s}.job for each row execute function {s}.refuse()");
        try (Connection c = db.getConnection()) {
            LockMaintenance.Recovered r = maintenance.sweepExpired(c, List.of());
            assertThat(r.unlocked()).as("every other row, in the pages before the refused one and after it").isEqualTo(2499);
        }
        assertThat(jobs.count("select count(*) from {s}.job where locked_by is null")).isEqualTo(2499);
    }
}
