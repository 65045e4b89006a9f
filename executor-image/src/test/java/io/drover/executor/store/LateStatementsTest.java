package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Statements whose effect depends on the server's clock or on the node still wanting them must
 * change nothing when the server runs them after their node gave up. A stalled server (a storage
 * stall, a paused VM) keeps the requests sent to it and runs them when it resumes, with its
 * clock past every lease that nobody could renew meanwhile. Auto-committed, an expired-lock
 * sweep then unlocked (or moved to dead letters as poison) jobs that live nodes were running, and
 * a start mark recorded a run its node had since dropped, which the sweep later counted as a
 * crash. In a transaction the late statement waits for a COMMIT that its node, which closed the
 * connection, never sends.
 *
 * <p>The server's stall is an advisory lock held by another session, which a trigger on the
 * statement's table waits for: the statement waits there past its client's timeout, as it would
 * in a frozen server, and runs on when the lock is released.
 */
class LateStatementsTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private static final long STALL = 7_700_001;
    private static final String OWNER = "node-0:1";

    /** A statement of the engine on a connection. */
    private interface Call {
        void run(Connection c) throws SQLException;
    }

    /** The sweep stalled in its unlock (an update of the job table) or its poison move (an insert of a dead letter). */
    @ParameterizedTest(name = "stalled on {1} of {0}")
    @CsvSource({"job, update", "dead_letter, insert"})
    void aSweepRunAfterItsNodeGaveUpCommitsNothing(String table, String event) throws Exception {
        Jobs jobs = expiredJobsOfADeadNode();
        LockMaintenance maintenance = maintenance(jobs.schema());
        late(jobs, table, event, c -> maintenance.sweepExpired(c, List.of()));
        assertNothingSwept(jobs, maintenance);
    }

    @Test
    void aStartMarkRunAfterItsNodeGaveUpRecordsNoRun() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(2, "any", "", 3);
        jobs.execute("update {s}.job set locked_by = '" + OWNER + "', lock_expires_at = now() + interval '1 minute',"
                + " suspect = true");
        JobStarts starts = new JobStarts(new JobSql(new Tables(schema)), OWNER, Duration.ofSeconds(10));
        List<Long> ids = ids(jobs);
        late(jobs, "job", "update", c -> starts.mark(c, ids));
        assertThat(jobs.count("select count(*) from {s}.job where started_at is null and attempts = 0"))
                .as("no run recorded, no attempt charged").isEqualTo(2);
        try (Connection c = db.getConnection()) {
            assertThat(starts.mark(c, ids)).as("a mark that is answered").hasSize(ids.size());
        }
        assertThat(jobs.count("select count(*) from {s}.job where started_at is not null and attempts = 1")).isEqualTo(2);
    }

    /**
     * An acquisition run late locks its page for a node that never got the answer. Once the
     * session that ran it has ended, the node releases the rows it does not hold; rows it holds,
     * rows with a start mark (the sweep counts their crash) and other nodes' rows stay locked.
     */
    @Test
    void aPageAcquiredAfterItsNodeGaveUpIsReleasedOnceItsSessionEnded() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(6, "any", "", 3);
        JobSql sql = new JobSql(new Tables(schema));
        List<Long> ids = ids(jobs);
        long heldHere = ids.get(0);
        long markedHere = ids.get(1);
        long otherNodes = ids.get(2);
        jobs.execute("update {s}.job set locked_by = '" + OWNER + "', lock_expires_at = now() + interval '1 minute'"
                + " where id in (" + heldHere + ", " + markedHere + ")");
        jobs.execute("update {s}.job set started_at = now() where id = " + markedHere);
        jobs.execute("update {s}.job set locked_by = 'node-1:1', lock_expires_at = now() + interval '1 minute'"
                + " where id = " + otherNodes);
        var acquisition = new io.drover.executor.acquire.SkipLockedAcquisition(sql, OWNER, Duration.ofSeconds(60));
        int[] session = new int[1];
        late(jobs, "job", "update", c -> {
            session[0] = backendPid(c);
            long before = System.nanoTime();
            try (Connection check = db.getConnection()) {
                assertThat(LockMaintenance.sessionsStillRunning(check, new int[] {session[0]}, new long[] {0}))
                        .as("a live session").containsExactly(session[0]);
                long sinceItStarted = Duration.ofNanos(System.nanoTime() - before).toMillis() + 60_000;
                assertThat(LockMaintenance.sessionsStillRunning(check, new int[] {session[0]}, new long[] {sinceItStarted}))
                        .as("a pid of a session that started after the node gave up is another session").isEmpty();
            }
            acquisition.acquire(c, 10);
        });
        assertThat(jobs.count("select count(*) from {s}.job where locked_by = '" + OWNER + "'"))
                .as("the late page, locked for this node: the three free rows, and the two it had").isEqualTo(5);
        try (Connection c = db.getConnection()) {
            assertThat(LockMaintenance.sessionsStillRunning(c, new int[] {session[0]}, new long[] {0}))
                    .as("the session has ended").isEmpty();
            int checkpointer = (int) jobs.count("select pid from pg_stat_activity where backend_type = 'checkpointer'");
            assertThat(LockMaintenance.sessionsStillRunning(c, new int[] {checkpointer}, new long[] {0}))
                    .as("a server process with that pid (after a failover) is not a client session").isEmpty();
            LockMaintenance maintenance = maintenance(schema);
            long busy = ids.get(3);
            try (Connection other = db.getConnection(); Statement st = other.createStatement()) {
                other.setAutoCommit(false);
                st.execute("select id from " + schema + ".job where id = " + busy + " for update"); // as a sweep page might
                assertThat(maintenance.releaseUnheld(c, List.of(heldHere))).as("released, the busy row skipped").isEqualTo(2);
                assertThat(maintenance.unheldLeft(c, List.of(heldHere))).as("the skipped row, seen as left (StrayLocks looks again)").isTrue();
                other.commit();
                other.setAutoCommit(true);
            }
            assertThat(maintenance.releaseUnheld(c, List.of(heldHere))).as("the busy row, released next time").isEqualTo(1);
            assertThat(maintenance.unheldLeft(c, List.of(heldHere))).as("none left").isFalse();
        }
        assertThat(jobs.count("select count(*) from {s}.job where locked_by is null")).isEqualTo(3);
        assertThat(jobs.count("select count(*) from {s}.job where locked_by = '" + OWNER + "' and id in ("
                + heldHere + ", " + markedHere + ")")).as("held here, and marked started").isEqualTo(2);
        assertThat(jobs.count("select count(*) from {s}.job where locked_by = 'node-1:1'")).isEqualTo(1);
    }

    /** Three jobs queued on a node that died, and one it was running after two crashes: all expired. */
    private static Jobs expiredJobsOfADeadNode() throws SQLException {
        Jobs jobs = new Jobs(db, TestDatabase.freshSchema(db));
        jobs.enqueue(4, "any", "", 3);
        jobs.execute("update {s}.job set locked_by = 'gone:1', lock_expires_at = now() - interval '1 minute'");
        jobs.execute("update {s}.job set started_at = now() - interval '2 minutes', crashes = 2, attempts = 1"
                + " where id = (select max(id) from {s}.job)");
        return jobs;
    }

    private static LockMaintenance maintenance(String schema) {
        return new LockMaintenance(new JobSql(new Tables(schema)), OWNER, "node-0", Duration.ofSeconds(10), 3);
    }

    private static void assertNothingSwept(Jobs jobs, LockMaintenance maintenance) throws SQLException {
        assertThat(jobs.count("select count(*) from {s}.job where locked_by = 'gone:1'")).as("still locked").isEqualTo(4);
        assertThat(jobs.deadLetters()).as("nothing moved to dead letters").isZero();
        try (Connection c = db.getConnection()) {
            LockMaintenance.Recovered r = maintenance.sweepExpired(c, List.of());
            assertThat(r.unlocked()).as("a sweep that is answered unlocks the queued ones").isEqualTo(3);
            assertThat(r.poisoned()).as("and moves the one at its third crash").isEqualTo(1);
        }
    }

    /**
     * Runs {@code call} on a connection of its own that gives up after a second, while the server
     * stalls on a trigger of {@code table}'s {@code event}; checks that the statement was waiting
     * there when its client gave up, lets the server go on, and waits until its session is gone.
     */
    private static void late(Jobs jobs, String table, String event, Call call) throws Exception {
        jobs.execute("create function {s}.stall() returns trigger language plpgsql as $$ begin perform pg_advisory_lock("
                + STALL + "); perform pg_advisory_unlock(" + STALL + "); return new; end $$");
        jobs.execute("create trigger stall before " + event + " on {s}." + table + " for each row execute function {s}.stall()");
        int backend;
        try (Connection stall = DriverManager.getConnection(TestDatabase.jdbcUrl(), "postgres", "postgres");
             Connection node = DriverManager.getConnection(TestDatabase.jdbcUrl(), "postgres", "postgres")) {
            try (Statement st = stall.createStatement()) {
                st.execute("select pg_advisory_lock(" + STALL + ")");
            }
            backend = backendPid(node);
            node.setNetworkTimeout(Runnable::run, 1000); // the node's socket timeout
            assertThatThrownBy(() -> call.run(node)).isInstanceOf(SQLException.class);
            assertThat(jobs.count("select count(*) from pg_stat_activity where pid = " + backend
                    + " and wait_event_type = 'Lock' and wait_event = 'advisory'"))
                    .as("the statement waits in the stalled trigger, its client gone").isEqualTo(1);
            try (Statement st = stall.createStatement()) {
                st.execute("select pg_advisory_unlock(" + STALL + ")"); // the server resumes: the late statement runs on
            }
        }
        Jobs.await("the abandoned session has ended", Duration.ofSeconds(30),
                () -> jobs.count("select count(*) from pg_stat_activity where pid = " + backend) == 0);
        jobs.execute("drop trigger stall on {s}." + table);
    }

    private static List<Long> ids(Jobs jobs) throws SQLException {
        List<Long> ids = new java.util.ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select id from " + jobs.schema() + ".job")) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    private static int backendPid(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
