package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import io.drover.contract.DatabaseDiagnosis;
import io.drover.executor.testing.Backends;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's pool checks a connection on borrow only when it sat idle for a while, so a busy
 * loop pays no round trip per borrow, and still never hands out a connection whose session the
 * server ended more than once: one found broken on borrow after idling is replaced, and one
 * borrowed again at once is discarded after the one call that failed on it. On a real
 * PostgreSQL, backends ended with pg_terminate_backend (as a failover or an administrator ends
 * them).
 */
class EnginePoolTest {
    private static final AgroalDataSource admin = TestDatabase.sharedPool();

    @Test
    void aConnectionUsedAMomentAgoIsHandedOutUncheckedAndDiscardedOnceItFails() throws Exception {
        // The check interval is long here, so the borrow after the termination is surely "at once".
        try (AgroalDataSource pool = enginePool(Duration.ofMinutes(1))) {
            long first = backendPid(pool);
            assertThat(backendPid(pool)).as("the same connection, again").isEqualTo(first);
            terminate(first);
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                assertThatThrownBy(() -> s.execute("select 1"))
                        .as("handed out unchecked: the ended session fails its next call")
                        .isInstanceOf(SQLException.class)
                        .satisfies(e -> assertThat(SqlErrors.connectionLost((SQLException) e)).isTrue());
            }
            assertThat(backendPid(pool)).as("the failed connection was discarded, not pooled again")
                    .isNotEqualTo(first);
        }
    }

    /**
     * A failover ends every session at once. The connections the loops returned a moment ago are
     * handed out unchecked; the first call that fails on one has the pool check the others then,
     * so one call fails, not one per pooled connection.
     */
    @Test
    void aLostConnectionHasThePoolCheckItsIdleOnesAtOnce() throws Exception {
        try (AgroalDataSource pool = enginePool(Duration.ofMinutes(1))) {
            pool.getConfiguration().setMetricsEnabled(true);
            List<Long> ended = new ArrayList<>();
            List<Connection> three = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                three.add(pool.getConnection());
                ended.add(backendPid(three.get(i)));
            }
            for (Connection c : three) {
                c.close();
            }
            for (long pid : ended) {
                terminate(pid);
            }
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                assertThatThrownBy(() -> s.execute("select 1")).as("the first borrower's call fails")
                        .isInstanceOf(SQLException.class);
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (pool.getMetrics().destroyCount() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(pool.getMetrics().destroyCount())
                    .as("the failed connection and the two idle ones, found broken by the check it started")
                    .isEqualTo(3);
            assertThat(LostConnections.of(pool).checksStarted()).isEqualTo(1);
            for (int i = 0; i < 3; i++) {
                assertThat(backendPid(pool)).as("a live connection, at once").isNotIn(ended);
            }
        }
    }

    /**
     * A call that timed out (the backend frozen with SIGSTOP: no answer, as on a half-open
     * connection) does not start that check, whose validation of such connections would hold
     * the pool's one housekeeping thread, which opens new connections; not even through the
     * rollback and the restore of auto-commit that follow it in a transaction, on the connection
     * the driver closed ("This connection has been closed.", 08003). A session the server ended
     * does start it.
     */
    @Test
    void aTimeoutDoesNotStartTheIdleCheckAnEndedSessionDoes() throws Exception {
        try (AgroalDataSource pool = PooledDataSource.forEngine(TestDatabase.jdbcUrl(), "postgres", "postgres",
                Duration.ofSeconds(3), Duration.ofMinutes(1))) {
            long frozen = backendPid(pool);
            signal("STOP", frozen);
            SQLException timedOut;
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                timedOut = failure(() -> Transactions.run(c, () -> s.execute("select 1")));
            } finally {
                signal("CONT", frozen);
            }
            assertThat(DatabaseDiagnosis.timedOut(timedOut)).as("the timeout, not the closed connection after it").isTrue();
            assertThat(timedOut.getSuppressed()).as("the rollback's and the restore's failures").isNotEmpty()
                    .allSatisfy(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("08003"));
            assertThat(LostConnections.checksIdle(timedOut)).isFalse();
            assertThat(LostConnections.of(pool).checksStarted()).isZero();
            assertThat(backendPid(pool)).as("the frozen connection was discarded").isNotEqualTo(frozen);

            long ended = backendPid(pool);
            terminate(ended);
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                SQLException terminated = failure(() -> s.execute("select 1"));
                assertThat(DatabaseDiagnosis.timedOut(terminated)).isFalse();
                assertThat(LostConnections.checksIdle(terminated)).isTrue();
            }
            assertThat(LostConnections.of(pool).checksStarted()).isEqualTo(1);
        }
    }

    @Test
    void aConnectionIdleLongerThanTheCheckIntervalIsCheckedAndReplacedWhenBroken() throws Exception {
        try (AgroalDataSource pool = enginePool(PooledDataSource.IDLE_VALIDATION)) {
            long first = backendPid(pool);
            terminate(first);
            Thread.sleep(PooledDataSource.IDLE_VALIDATION.toMillis() + 200);
            // No failure: the broken connection is found on borrow and a new one handed out.
            assertThat(backendPid(pool)).isNotEqualTo(first);
        }
    }

    /**
     * A connection to a server that takes only reads (after a failover, the old primary back as a
     * replica, or stale DNS) refuses every write with 25006. That is not the row's fault: the
     * engine counts the database unreachable (no job starts, outcomes wait, renewal failures
     * start the quiet period). The pool drops that connection and all its others, which were
     * opened to the same server and would each pass a check, so the next ones can reach the new
     * primary. Here the sessions are made read-only as a replica's are.
     */
    @Test
    void aConnectionThatTakesNoWritesIsCountedUnreachableAndThePoolDropsAllItsConnections() throws Exception {
        try (AgroalDataSource pool = enginePool(Duration.ofMinutes(1))) {
            List<Connection> three = new ArrayList<>();
            List<Long> readOnly = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Connection c = pool.getConnection();
                three.add(c);
                readOnly.add(backendPid(c));
                try (Statement s = c.createStatement()) {
                    s.execute("set session characteristics as transaction read only");
                }
            }
            for (Connection c : three) {
                c.close();
            }
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                assertThat(backendPid(c)).as("a pooled connection, unchecked").isIn(readOnly);
                assertThatThrownBy(() -> s.execute("create table read_only_probe (i int)"))
                        .isInstanceOf(SQLException.class)
                        .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("25006"))
                        .satisfies(e -> assertThat(DatabaseDiagnosis.unreachable(e)).as("unreachable for writes").isTrue())
                        .satisfies(e -> assertThat(SqlErrors.worthRetrying(e)).as("to be tried again").isTrue());
            }
            assertThat(LostConnections.of(pool).dropsStarted()).isEqualTo(1);
            assertThat(LostConnections.of(pool).checksStarted()).as("a check would pass them").isZero();
            awaitNoneOf(pool, readOnly);
        }
    }

    /** Waits until the pool hands out none of these backends (it drops them on its housekeeping thread). */
    static void awaitNoneOf(AgroalDataSource pool, List<Long> dropped) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            List<Connection> all = new ArrayList<>();
            List<Long> pids = new ArrayList<>();
            try {
                for (int i = 0; i < pool.getConfiguration().connectionPoolConfiguration().maxSize(); i++) {
                    all.add(pool.getConnection());
                    pids.add(backendPid(all.get(i)));
                }
            } finally {
                for (Connection c : all) {
                    c.close();
                }
            }
            if (pids.stream().noneMatch(dropped::contains)) {
                return;
            }
            assertThat(System.nanoTime()).as("still handed out: %s", pids).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    @Test
    void aStatementTheDatabaseRefusesLeavesTheConnectionPooled() throws Exception {
        try (AgroalDataSource pool = enginePool(PooledDataSource.IDLE_VALIDATION)) {
            long first = backendPid(pool);
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                assertThatThrownBy(() -> s.execute("select 1/0")).isInstanceOf(SQLException.class)
                        .satisfies(e -> assertThat(SqlErrors.connectionLost((SQLException) e)).isFalse());
            }
            assertThat(backendPid(pool)).as("a refused statement does not cost the connection").isEqualTo(first);
        }
    }

    /**
     * The plan pin and the page go in one request (IndexPlans.pinned). Where the shared pool binds
     * strings untyped (stringtype=unspecified, in its URL or its properties), pgjdbc put a Sync
     * between them from a statement's sixth run on, and in auto-commit mode the page then ran
     * unpinned: the engine's pool binds strings as varchar whatever the shared one says.
     */
    @Test
    void thePinReachesTheStatementWhereTheSharedPoolBindsStringsUntyped() throws Exception {
        String url = TestDatabase.jdbcUrl() + (TestDatabase.jdbcUrl().contains("?") ? "&" : "?")
                + "stringtype=unspecified";
        var shared = new AgroalDataSourceConfigurationSupplier().connectionPoolConfiguration(pool -> pool.maxSize(2)
                .connectionFactoryConfiguration(f -> f.jdbcUrl(url).principal(new NamePrincipal("postgres"))
                        .credential(new SimplePassword("postgres")).jdbcProperty("stringtype", "unspecified")));
        try (AgroalDataSource base = AgroalDataSource.from(shared)) {
            assertThat(settingsSeenByThePinnedStatement(base)).as("the premise: a plain pool loses the pin")
                    .contains("on");
            try (AgroalDataSource engine = PooledDataSource.forEngine(base, Duration.ofSeconds(10))) {
                assertThat(settingsSeenByThePinnedStatement(engine)).containsOnly("off");
            }
        }
    }

    @Test
    void theEnginesOwnSettingsWinOverTheUrls() {
        var engine = PooledDataSource.engineProperties(Duration.ofSeconds(10));
        assertThat(PooledDataSource.engineUrl("jdbc:postgresql://db:5432/app?socketTimeout=0&sslmode=require"
                + "&StringType=unspecified&ApplicationName=x", engine))
                .isEqualTo("jdbc:postgresql://db:5432/app?sslmode=require&ApplicationName=x");
        assertThat(PooledDataSource.engineUrl("jdbc:postgresql://db/app?stringtype=unspecified", engine))
                .isEqualTo("jdbc:postgresql://db/app");
        assertThat(PooledDataSource.engineUrl("jdbc:postgresql://db/app", engine)).isEqualTo("jdbc:postgresql://db/app");
    }

    /** A pinned statement with a string parameter, run twelve times on one connection: enable_sort as it saw it. */
    private static List<String> settingsSeenByThePinnedStatement(AgroalDataSource pool) throws SQLException {
        List<String> seen = new ArrayList<>();
        try (Connection c = pool.getConnection()) {
            assertThat(c.getAutoCommit()).isTrue();
            for (int i = 0; i < 12; i++) {
                try (PreparedStatement ps = c.prepareStatement(
                        IndexPlans.pinned("select current_setting('enable_sort'), ? as owner"))) {
                    ps.setString(1, "node-" + i);
                    try (ResultSet rs = IndexPlans.executeQuery(ps)) {
                        rs.next();
                        seen.add(rs.getString(1));
                    }
                }
            }
        }
        return seen;
    }

    private static AgroalDataSource enginePool(Duration idleValidation) {
        return PooledDataSource.forEngine(TestDatabase.jdbcUrl(), "postgres", "postgres", Duration.ofSeconds(10),
                idleValidation);
    }

    private static long backendPid(AgroalDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection()) {
            return backendPid(c);
        }
    }

    private static long backendPid(Connection c) throws SQLException {
        return Backends.pid(c);
    }

    private static SQLException failure(Transactions.SqlWork<?> call) {
        try {
            call.run();
        } catch (SQLException e) {
            return e;
        }
        throw new AssertionError("the call did not fail");
    }

    private static void signal(String signal, long pid) throws Exception {
        Backends.signal(signal, pid);
    }

    /** Ends the backend and waits until the server no longer lists it. */
    private static void terminate(long pid) throws Exception {
        Backends.terminate(admin, pid, true);
    }
}
