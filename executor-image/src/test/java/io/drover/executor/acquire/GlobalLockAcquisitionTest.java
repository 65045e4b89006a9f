package io.drover.executor.acquire;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.IndexPlans;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.GlobalLockHolder;
import io.drover.executor.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Global mode's acquisition, one request (the lock's try, the page, the commit) against a real
 * PostgreSQL, with another session in the part of a node that holds the lock: the page is taken
 * only under the lock, the request's commit frees it, a node that never gets it takes nothing,
 * and a node that waited sees what the holder committed.
 */
class GlobalLockAcquisitionTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private static final Duration MAX_HOLD = Duration.ofSeconds(30);

    @Test
    void takesTheOldestPageAndItsCommitFreesTheLock() throws Exception {
        String schema = schemaWithDueJobs(10);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Connection c = db.getConnection()) {
            Acquisition a = acquisition(schema, Duration.ofSeconds(1), registry).acquire(c, 4);
            assertThat(a.jobs()).extracting(AcquiredJob::id).containsExactly(1L, 2L, 3L, 4L);
            assertThat(a.mayHaveMore()).isTrue();
            assertThat(c.getAutoCommit()).as("left in auto-commit mode, no transaction open").isTrue();
        }
        assertThat(count(schema, "locked_by = 'n:1'")).as("committed").isEqualTo(4);
        try (Connection other = session()) {
            assertThat(GlobalLockHolder.take(other, schema, MAX_HOLD)).as("the lock is free again").isTrue();
            other.rollback();
        }
        assertThat(registry.get("drover.global.lock.hold").timer().count()).isEqualTo(1);
    }

    /**
     * A page the database refuses for one row is taken by a search that runs after the failed
     * request's rollback freed the lock: the lock's hold is that request's, not the search's.
     * Each statement that locks rows (the search's, never the failed page's: its row trigger
     * aborts it before statement triggers fire) here takes a second.
     */
    @Test
    void aSearchForARefusedRowIsNotCountedAsHoldingTheLock() throws Exception {
        String schema = schemaWithDueJobs(4);
        try (Connection c = session(); Statement s = c.createStatement()) {
            s.execute("create function " + schema + ".refuse_first() returns trigger language plpgsql as $$ begin"
                    + " if old.id = 1 and new.locked_by is not null then raise exception 'job 1 is not to be locked'; end if;"
                    + " return new; end $$");
            s.execute("create trigger refuse_first before update on " + schema + ".job for each row execute function "
                    + schema + ".refuse_first()");
            s.execute("create function " + schema + ".slow_lock() returns trigger language plpgsql as $$ begin"
                    + " perform pg_sleep(1); return null; end $$");
            s.execute("create trigger slow_lock after update on " + schema + ".job for each statement execute function "
                    + schema + ".slow_lock()");
            c.commit();
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Connection c = db.getConnection()) {
            long start = System.nanoTime();
            Acquisition a = acquisition(schema, Duration.ofSeconds(1), registry).acquire(c, 4);
            assertThat(a.jobs()).extracting(AcquiredJob::id).containsExactly(2L, 3L, 4L);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the search's statements").isGreaterThan(Duration.ofSeconds(1));
        }
        var hold = registry.get("drover.global.lock.hold").timer();
        assertThat(hold.count()).isEqualTo(1);
        assertThat(hold.totalTime(TimeUnit.MILLISECONDS)).as("the failed page request only").isLessThan(1000);
    }

    /**
     * The jobs' lease counts from the request that locked them, not from the start of the wait
     * for the lock: a page taken after most of a long wait arrived with its leases run out, and
     * the node dropped it unstarted.
     */
    @Test
    void aPageTakenAfterAWaitForTheLockIsLeasedFromTheRequestThatTookIt() throws Exception {
        String schema = schemaWithDueJobs(10);
        GlobalLockAcquisition acquisition = acquisition(schema, Duration.ofSeconds(10), new SimpleMeterRegistry());
        try (Connection holder = session();
             Connection c = db.getConnection()) {
            assertThat(GlobalLockHolder.take(holder, schema, MAX_HOLD)).isTrue();
            long released = System.nanoTime() + 1_000_000_000L;
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    Thread.sleep(1000);
                    holder.rollback();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            long waitStart = System.nanoTime();
            Acquisition a = acquisition.acquire(c, 4);
            assertThat(a.jobs()).hasSize(4);
            assertThat(Duration.ofNanos(a.sentNanos() - waitStart)).as("the page's request, after the wait")
                    .isGreaterThanOrEqualTo(Duration.ofNanos(released - waitStart).minusMillis(100));
        }
    }

    @Test
    void takesNothingWhileAnotherNodeHoldsTheLockAndGivesUpAtTheWaitTime() throws Exception {
        String schema = schemaWithDueJobs(10);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        GlobalLockAcquisition acquisition = acquisition(schema, Duration.ofMillis(200), registry);
        try (Connection holder = session();
             Connection c = db.getConnection()) {
            assertThat(GlobalLockHolder.take(holder, schema, MAX_HOLD)).isTrue();

            assertThat(acquisition.acquire(c, 4)).isSameAs(Acquisition.CONTENDED);
            assertThat(count(schema, "locked_by is null")).as("no row taken without the lock").isEqualTo(10);
            assertThat(registry.get("drover.global.lock.timeouts").counter().count()).isEqualTo(1);

            holder.rollback();
            assertThat(acquisition.acquire(c, 4).jobs()).hasSize(4);
        }
    }

    @Test
    void aNodeThatWaitedForTheLockSeesWhatTheHolderCommitted() throws Exception {
        String schema = schemaWithDueJobs(10);
        try (Connection holder = session();
             Connection c = db.getConnection()) {
            assertThat(GlobalLockHolder.take(holder, schema, MAX_HOLD)).isTrue();
            try (Statement s = holder.createStatement()) {
                s.executeUpdate("update " + schema + ".job set locked_by = 'n:0', lock_expires_at = now() + interval '1 minute'"
                        + " where id <= 3");
            }
            int node = backendPid(c);
            // The node asks while the holder's page is not committed yet; the holder commits later.
            CompletableFuture<Acquisition> asked = CompletableFuture.supplyAsync(() -> {
                try {
                    return acquisition(schema, Duration.ofSeconds(10), new SimpleMeterRegistry()).acquire(c, 10);
                } catch (SQLException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            // Waiting for the lock, not for the holder's rows: the page statement takes none
            // (nor waits on any) unless the request's try took the lock.
            for (int i = 0; i < 6; i++) {
                Thread.sleep(50);
                assertThat(countOf("pg_locks", "not granted and pid = " + node)).as("a lock the waiting node waits for")
                        .isZero();
            }
            assertThat(asked).isNotDone();
            holder.commit();

            Acquisition a = asked.get(10, TimeUnit.SECONDS);
            assertThat(a.jobs()).extracting(AcquiredJob::id).containsExactly(4L, 5L, 6L, 7L, 8L, 9L, 10L);
            assertThat(a.mayHaveMore()).isFalse();
        }
        assertThat(count(schema, "locked_by = 'n:0'")).isEqualTo(3);
        assertThat(count(schema, "locked_by = 'n:1'")).isEqualTo(7);
    }

    @Test
    void theServerEndsAPageThatRunsPastGlobalLockMaxHoldAndTheLockIsFreeAgain() throws Exception {
        String schema = schemaWithDueJobs(10);
        try (Connection rowHolder = session();
             Connection c = db.getConnection()) {
            try (Statement s = rowHolder.createStatement()) {
                s.execute("select id from " + schema + ".job where id = 1 for update"); // the page's update waits on it
            }
            GlobalLockAcquisition acquisition = acquisition(schema, Duration.ofSeconds(1), Duration.ofSeconds(1),
                    new SimpleMeterRegistry());
            long start = System.nanoTime();
            assertThatThrownBy(() -> acquisition.acquire(c, 4)).isInstanceOf(SQLException.class)
                    .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("57014"); // statement timeout
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            try (Connection other = session()) {
                    assertThat(GlobalLockHolder.take(other, schema, MAX_HOLD)).as("the lock is free again").isTrue();
                other.rollback();
            }
            rowHolder.rollback();
        }
        assertThat(count(schema, "locked_by is not null")).as("the page rolled back").isZero();
    }

    @Test
    void aPageStatementCutOffFromItsTryFailsInsteadOfReportingNothingDue() throws Exception {
        String schema = schemaWithDueJobs(3);
        try (Connection c = db.getConnection()) {
            // The try in a transaction of its own, as a Sync between the two statements would leave it.
            try (PreparedStatement ps = c.prepareStatement(JobSql.TRY_GLOBAL_LOCK)) {
                ps.setString(1, "30000");
                ps.setString(2, "30000");
                ps.setLong(3, GlobalAcquireLock.keyFor(schema));
                ps.executeQuery().close();
            }
            try (PreparedStatement ps = c.prepareStatement(IndexPlans.pinned(new JobSql(new Tables(schema)).lockPage(false)))) {
                ps.setInt(1, 3);
                ps.setString(2, "n:1");
                ps.setLong(3, 60_000);
                assertThatThrownBy(() -> IndexPlans.executeQuery(ps)).isInstanceOf(SQLException.class)
                        .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("22P02"); // '' is not a boolean
            }
        }
        assertThat(count(schema, "locked_by is not null")).isZero();
    }

    /** Another party's session (another node, or a holder), in a transaction until it commits or rolls back. */
    private static Connection session() throws SQLException {
        Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(), "postgres", "postgres");
        c.setAutoCommit(false);
        return c;
    }

    private static GlobalLockAcquisition acquisition(String schema, Duration waitTime, SimpleMeterRegistry registry) {
        return acquisition(schema, waitTime, MAX_HOLD, registry);
    }

    private static GlobalLockAcquisition acquisition(String schema, Duration waitTime, Duration maxHold,
                                                     SimpleMeterRegistry registry) {
        return new GlobalLockAcquisition(new JobSql(new Tables(schema)), "n:1", Duration.ofMinutes(1),
                new GlobalAcquireLock(schema, maxHold), waitTime, Duration.ofMillis(20), new ExecutorMetrics(registry));
    }

    /** Jobs 1..n, due a second apart, oldest first. */
    private static String schemaWithDueJobs(int n) throws SQLException {
        String schema = TestDatabase.freshSchema(db);
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("insert into " + schema + ".job (type, due_at) select 'noop', now() - (" + n + " - g) * interval '1 s'"
                    + " from generate_series(1, " + n + ") g");
        }
        return schema;
    }

    private static int backendPid(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static int count(String schema, String where) throws SQLException {
        return countOf(schema + ".job", where);
    }

    private static int countOf(String table, String where) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select count(*) from " + table + " where " + where)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
