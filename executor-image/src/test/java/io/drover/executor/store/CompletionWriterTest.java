package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.store.CompletionWriter.Batch;
import io.drover.executor.store.CompletionWriter.Entry;
import io.drover.executor.store.CompletionWriter.Kind;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the completion writer does when the database refuses an outcome and when the attempt
 * fails for a reason that says nothing about the outcome, on a real PostgreSQL.
 */
class CompletionWriterTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private static final String OWNER = "n:1";

    /**
     * A finished job whose row another transaction holds locked past the statement timeout: the
     * attempt fails and is thrown for the caller to write the batch again. It used to be written
     * outcome by outcome, the locked one then failing too and moved to dead letters as "its outcome
     * could not be stored": a job that succeeded, dead-lettered because its row was busy.
     */
    @Test
    void anOutcomeWhoseRowIsLockedForAWhileIsWrittenLaterNotDeadLettered() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        long id = heldJob(jobs);
        CompletionWriter writer = new CompletionWriter(new JobSql(new Tables(schema)), OWNER);
        Batch batch = new Batch().add(new Entry(Kind.DONE, id, 0, null, 0));

        try (Connection holder = db.getConnection(); Statement hold = holder.createStatement()) {
            holder.setAutoCommit(false);
            hold.executeQuery("select id from " + schema + ".job where id = " + id + " for update").close();
            try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
                s.execute("set statement_timeout = 300");
                assertThatThrownBy(() -> writer.write(c, batch)).isInstanceOf(SQLException.class)
                        .satisfies(e -> assertThat(SqlErrors.worthRetrying(e)).isTrue());
                s.execute("reset statement_timeout");
            }
            holder.rollback();
        }
        assertThat(jobs.count("select count(*) from {s}.dead_letter")).as("nothing dead-lettered").isZero();

        try (Connection c = db.getConnection()) {
            assertThat(writer.write(c, batch)).isEqualTo(new CompletionWriter.Result(1, java.util.List.of(),
                    java.util.List.of()));
        }
        assertThat(jobs.jobsLeft()).isZero();
        assertThat(jobs.count("select count(*) from {s}.dead_letter")).isZero();
    }

    /**
     * An outcome the database refuses (a retry delay past the end of time: out of range, not worth
     * retrying) is dead-lettered with the reason, and the rest of its batch is written.
     */
    @Test
    void anOutcomeTheDatabaseRefusesIsDeadLetteredAndTheRestOfItsBatchWritten() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        long refused = heldJob(jobs);
        long fine = heldJob(jobs);
        CompletionWriter writer = new CompletionWriter(new JobSql(new Tables(schema)), OWNER);
        Batch batch = new Batch().add(new Entry(Kind.RETRY, refused, Long.MAX_VALUE, "failed", 1))
                .add(new Entry(Kind.DONE, fine, 0, null, 0));

        CompletionWriter.Result result;
        try (Connection c = db.getConnection()) {
            result = writer.write(c, batch);
        }
        assertThat(result.refused()).containsExactly(refused);
        assertThat(result.written()).isEqualTo(2);
        assertThat(jobs.jobsLeft()).as("both rows gone from the job table").isZero();
        assertThat(jobs.count("select count(*) from {s}.dead_letter where id = " + refused
                + " and error like 'its outcome could not be stored (RETRY)%'")).isEqualTo(1);
    }

    /** One job, locked by {@link #OWNER} as an acquisition leaves it. */
    private static long heldJob(Jobs jobs) {
        jobs.execute("insert into {s}.job (type, locked_by, lock_expires_at) values ('noop', '" + OWNER
                + "', now() + interval '1 minute')");
        return jobs.count("select max(id) from {s}.job");
    }
}
