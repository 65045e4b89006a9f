package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.store.CompletionWriter.Batch;
import io.drover.executor.store.CompletionWriter.Entry;
import io.drover.executor.store.CompletionWriter.Kind;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
    /** The version an acquisition left on {@link #heldJob}'s rows. */
    private static final int TENURE = 7;

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
        Batch batch = new Batch().add(new Entry(Kind.DONE, id, TENURE, 0, null, 0));

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
     * A failure that could be the server's (its own I/O error, 58030, as a storage fault raises
     * it, here on every delete) fails every write of the batch, while the database takes a write
     * that touches no row: the outcomes are returned as unwritable (the loop holds them, locked,
     * and writes them again), never dead-lettered. They used to be written outcome by outcome,
     * each failing alike, and moved to dead letters: jobs that succeeded, dead-lettered for the
     * server's trouble. Thrown instead, a refusal alone in its batch was retried for good.
     */
    @Test
    void aFailureThatCouldBeTheServersIsNeverDeadLetteredAndIsWrittenOnceItCan() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        long first = heldJob(jobs);
        long second = heldJob(jobs);
        CompletionWriter writer = new CompletionWriter(new JobSql(new Tables(schema)), OWNER);
        Batch batch = new Batch().add(new Entry(Kind.DONE, first, TENURE, 0, null, 0))
                .add(new Entry(Kind.DONE, second, TENURE, 0, null, 0));
        ioError(jobs, "delete", "true");

        try (Connection c = db.getConnection()) {
            assertThat(writer.write(c, batch)).isEqualTo(new CompletionWriter.Result(0, java.util.List.of(),
                    java.util.List.of(first, second)));
        }
        assertThat(jobs.deadLetters()).as("nothing dead-lettered").isZero();
        assertThat(jobs.jobsLeft()).isEqualTo(2);

        jobs.execute("drop trigger io_error on {s}.job"); // the server recovers
        try (Connection c = db.getConnection()) {
            assertThat(writer.write(c, batch)).isEqualTo(new CompletionWriter.Result(2, java.util.List.of(),
                    java.util.List.of()));
        }
        assertThat(jobs.jobsLeft()).isZero();
        assertThat(jobs.deadLetters()).isZero();
    }

    /** A database that takes no write at all (here: the job table gone from under the node) is the server's trouble: thrown, to be written again later. */
    @Test
    void aDatabaseThatTakesNoWriteAtAllIsTheServersTroubleAndTheBatchIsWrittenLater() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        long first = heldJob(jobs);
        CompletionWriter writer = new CompletionWriter(new JobSql(new Tables(schema)), OWNER);
        Batch batch = new Batch().add(new Entry(Kind.DONE, first, TENURE, 0, null, 0));
        jobs.execute("alter table {s}.job rename to job_away");
        try (Connection c = db.getConnection()) {
            assertThatThrownBy(() -> writer.write(c, batch)).isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("42P01"));
        } finally {
            jobs.execute("alter table {s}.job_away rename to job");
        }
        try (Connection c = db.getConnection()) {
            assertThat(writer.write(c, batch).written()).isEqualTo(1);
        }
        assertThat(jobs.deadLetters()).isZero();
    }

    /**
     * A trigger (io_error) that fails the job table's {@code event} with the server's own I/O
     * error, 58030, as a storage fault raises it, for the rows that meet {@code when}.
     */
    private static void ioError(Jobs jobs, String event, String when) {
        jobs.execute("create function {s}.io_error() returns trigger language plpgsql as"
                + " $$ begin raise exception 'could not read block' using errcode = '58030'; end $$");
        jobs.execute("create trigger io_error before " + event + " on {s}.job for each row when (" + when
                + ") execute function {s}.io_error()");
    }

    /**
     * The same kind of failure met by one row only (a user trigger raising 58030 on its retry)
     * is that row's: the rest of the batch is written, and it alone is dead-lettered with the
     * reason, instead of holding up every outcome of the node.
     */
    @Test
    void aFailureOfAnotherKindThatOneRowAloneMeetsIsThatRowsOwn() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        long fine = heldJob(jobs);
        long bad = heldJob(jobs);
        CompletionWriter writer = new CompletionWriter(new JobSql(new Tables(schema)), OWNER);
        ioError(jobs, "update", "old.id = " + bad);

        CompletionWriter.Result result;
        try (Connection c = db.getConnection()) {
            result = writer.write(c, new Batch().add(new Entry(Kind.DONE, fine, TENURE, 0, null, 0))
                    .add(new Entry(Kind.RETRY, bad, TENURE, 1000, "failed", 1)));
        }
        assertThat(result.refused()).containsExactly(bad);
        assertThat(result.unwritable()).isEmpty();
        assertThat(jobs.jobsLeft()).as("the done one deleted, the refused one moved").isZero();
        assertThat(jobs.count("select count(*) from {s}.dead_letter where id = " + bad
                + " and error like 'its outcome could not be stored (RETRY): %could not read block%'")).isEqualTo(1);
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
        Batch batch = new Batch().add(new Entry(Kind.RETRY, refused, TENURE, Long.MAX_VALUE, "failed", 1))
                .add(new Entry(Kind.DONE, fine, TENURE, 0, null, 0));

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

    /**
     * An outcome written again after its first write committed unseen (the reply lost) finds the
     * row held by this node again, in a later tenure: a retry due at once, or a timer's next slot,
     * acquired again before the completion loop wrote the batch again. Whatever its kind, it must
     * change nothing there: owner and id match, the tenure does not. The outcome of the current
     * tenure is then written as usual.
     */
    @ParameterizedTest
    @EnumSource(value = Kind.class, names = "DONE", mode = EnumSource.Mode.EXCLUDE) // a deleted row never comes back
    void anOutcomeOfAnEarlierTenureLeavesTheRowsNextTenureAlone(Kind kind) throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        boolean timer = kind == Kind.NEXT_SLOT || kind == Kind.NEXT_SLOT_FAILED;
        long id = heldJob(jobs);
        jobs.execute("update {s}.job set version = " + (TENURE + 1) + ", attempts = 1"
                + (timer ? ", repeat_interval = interval '1 minute'" : "") + " where id = " + id);
        CompletionWriter writer = new CompletionWriter(new JobSql(new Tables(schema)), OWNER);

        try (Connection c = db.getConnection()) {
            assertThat(writer.write(c, new Batch().add(new Entry(kind, id, TENURE, 60_000, "failed", 1))).written())
                    .as("rows the earlier tenure's outcome changed").isZero();
        }
        assertThat(jobs.count("select count(*) from {s}.job where id = " + id + " and locked_by = '" + OWNER
                + "' and version = " + (TENURE + 1) + " and attempts = 1 and deferrals = 0 and last_error is null"))
                .as("the row as its current tenure holds it").isEqualTo(1);
        assertThat(jobs.deadLetters()).isZero();

        try (Connection c = db.getConnection()) {
            assertThat(writer.write(c, new Batch().add(new Entry(kind, id, TENURE + 1, 60_000, "failed", 1)))
                    .written()).as("the current tenure's outcome").isEqualTo(1);
        }
        assertThat(jobs.count("select count(*) from {s}.job where id = " + id + " and locked_by is not null"))
                .as("no longer held").isZero();
    }

    /**
     * A dead letter retried through the API comes back under the id it had; taken again by the
     * same node, its first tenure must not be the one a still-pending outcome of the earlier row
     * belongs to (a dead-letter outcome written again after a lost reply), or that outcome
     * dead-letters the job again while it runs. Every statement here is the engine's own.
     */
    @Test
    void aRetriedDeadLetterIsNotTakenForTheRowItWasBefore() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        JobSql sql = new JobSql(new Tables(schema));
        jobs.execute("insert into {s}.job (type) values ('noop')");
        long id = jobs.count("select max(id) from {s}.job");
        CompletionWriter writer = new CompletionWriter(sql, OWNER);
        int firstTenure;
        try (Connection c = db.getConnection()) {
            firstTenure = acquire(c, sql);
            assertThat(writer.write(c, new Batch().add(new Entry(Kind.DEAD, id, firstTenure, 0, "failed for good", 1)))
                    .written()).isEqualTo(1);
            try (var ps = c.prepareStatement(sql.retryDeadLetter())) {
                ps.setLong(1, id);
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
            acquire(c, sql);
            assertThat(writer.write(c, new Batch().add(new Entry(Kind.DEAD, id, firstTenure, 0, "failed for good", 1)))
                    .written()).as("the earlier row's outcome, written again").isZero();
        }
        assertThat(jobs.count("select count(*) from {s}.job where id = " + id + " and locked_by = '" + OWNER + "'"))
                .as("held by its new tenure").isEqualTo(1);
        assertThat(jobs.deadLetters()).isZero();
    }

    /** Takes the one due job for {@link #OWNER} with the acquisition's statement; returns its tenure. */
    private static int acquire(Connection c, JobSql sql) throws SQLException {
        try (var ps = c.prepareStatement(sql.lockPage(true))) {
            ps.setInt(1, 10);
            ps.setString(2, OWNER);
            ps.setLong(3, 60_000);
            try (var rs = ps.executeQuery()) {
                assertThat(rs.next()).as("a job to take").isTrue();
                return AcquiredJob.from(rs).version();
            }
        }
    }

    /**
     * A give-back (attempt delta -1) undoes a start mark's charge, and so applies only to a row
     * that carries a mark: a worker whose mark's answer was lost hands its job back with one,
     * not knowing whether the mark went in (LostStartMarkReplyTest). Without a mark the row's
     * attempts stand, for retries, deferrals and dead letters alike.
     */
    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"RETRY", "DEFER", "DEAD"})
    void aGiveBackUndoesOnlyAChargeAMarkMade(Kind kind) throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        long unmarked = heldJob(jobs);
        long marked = heldJob(jobs);
        jobs.execute("update {s}.job set attempts = 2");
        jobs.execute("update {s}.job set started_at = now() where id = " + marked);
        CompletionWriter writer = new CompletionWriter(new JobSql(new Tables(schema)), OWNER);
        try (Connection c = db.getConnection()) {
            writer.write(c, new Batch().add(new Entry(kind, unmarked, TENURE, 0, "handed back", -1))
                    .add(new Entry(kind, marked, TENURE, 0, "handed back", -1)));
        }
        String table = kind == Kind.DEAD ? "{s}.dead_letter" : "{s}.job";
        assertThat(jobs.count("select attempts from " + table + " where id = " + unmarked)).as("no mark: nothing to give back")
                .isEqualTo(2);
        assertThat(jobs.count("select attempts from " + table + " where id = " + marked)).as("the mark's charge given back")
                .isEqualTo(1);
        if (kind != Kind.DEAD) {
            assertThat(jobs.count("select count(*) from {s}.job where locked_by is null and started_at is null"))
                    .as("both unlocked, unmarked").isEqualTo(2);
        }
    }

    /** One job, locked by {@link #OWNER} as an acquisition leaves it (at version {@link #TENURE}). */
    private static long heldJob(Jobs jobs) {
        jobs.execute("insert into {s}.job (type, locked_by, lock_expires_at, version) values ('noop', '" + OWNER
                + "', now() + interval '1 minute', " + TENURE + ")");
        return jobs.count("select max(id) from {s}.job");
    }
}
