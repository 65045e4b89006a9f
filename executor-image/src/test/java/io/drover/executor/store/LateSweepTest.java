package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A sweep of expired locks whose node gave up waiting for the answer must change nothing when
 * the server runs it later. A stalled server (a storage stall, a paused VM) keeps the requests
 * sent to it and runs them when it resumes, with its clock past every lease that nobody could
 * renew meanwhile: an auto-committed sweep then unlocked the jobs live nodes were running, and
 * other nodes ran them again (docs/engine.md, "Crash safety"). In a transaction the late sweep
 * waits for a COMMIT that its node, which closed the connection, never sends.
 *
 * <p>Here the server's stall is an advisory lock held by another session, which a trigger on the
 * job table's updates waits for: the sweep's unlock (its second statement, after the poison one)
 * waits past its client's timeout, as it would in a frozen server, and runs when it is released.
 */
class LateSweepTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private static final long STALL = 7_700_001;

    @Test
    void aSweepRunAfterItsNodeGaveUpCommitsNothing() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(3, "any", "", 3);
        jobs.execute("update {s}.job set locked_by = 'gone:1', lock_expires_at = now() - interval '1 minute'");
        LockMaintenance maintenance = new LockMaintenance(new JobSql(new Tables(schema)), "node-0:1", "node-0",
                Duration.ofSeconds(10), 3);

        int sweeperBackend;
        try (Connection stall = DriverManager.getConnection(TestDatabase.jdbcUrl(), "postgres", "postgres");
             Connection sweeper = DriverManager.getConnection(TestDatabase.jdbcUrl(), "postgres", "postgres")) {
            try (Statement s = stall.createStatement()) {
                s.execute("create function " + schema + ".stall() returns trigger language plpgsql as"
                        + " $$ begin perform pg_advisory_lock(" + STALL + "); perform pg_advisory_unlock(" + STALL + ");"
                        + " return new; end $$");
                s.execute("create trigger stall before update on " + schema + ".job for each row execute function "
                        + schema + ".stall()");
                s.execute("select pg_advisory_lock(" + STALL + ")");
            }
            sweeperBackend = backendPid(sweeper);
            // The node's socket timeout: it gives up and closes the connection, its request still queued.
            sweeper.setNetworkTimeout(Executors.newSingleThreadExecutor(), 1000);
            assertThatThrownBy(() -> maintenance.sweepExpired(sweeper, List.of())).isInstanceOf(SQLException.class);
            try (Statement s = stall.createStatement()) {
                s.execute("select pg_advisory_unlock(" + STALL + ")"); // the server resumes: the queued sweep runs on
            }
        }
        io.drover.executor.testing.Jobs.await("the abandoned sweep's session has ended", Duration.ofSeconds(30),
                () -> jobs.count("select count(*) from pg_stat_activity where pid = " + sweeperBackend) == 0);

        assertThat(jobs.count("select count(*) from {s}.job where locked_by = 'gone:1'"))
                .as("the late sweep unlocked nothing").isEqualTo(3);
        jobs.execute("drop trigger stall on {s}.job");
        try (Connection c = db.getConnection()) {
            assertThat(maintenance.sweepExpired(c, List.of()).unlocked()).as("a sweep that is answered").isEqualTo(3);
        }
        assertThat(jobs.count("select count(*) from {s}.job where locked_by is null and suspect")).isEqualTo(3);
    }

    private static int backendPid(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
