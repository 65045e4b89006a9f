package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.NodePresence;
import io.drover.executor.store.PooledDataSource;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The node's session (presence lock, LISTEN) on a real PostgreSQL, where its server fails it. */
class NodeSessionTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    /**
     * A session on a server that takes only reads (the old primary back as a replica; here its
     * transactions default to read-only) connects, claims its lock and listens as on a healthy
     * one. It told the node the database was reachable again, and workers started jobs whose
     * outcomes could not be written (they ran again once their locks lapsed). It now says the
     * database takes only reads.
     */
    @Test
    void aSessionOnAServerThatTakesOnlyReadsNeverTellsTheNodeTheDatabaseIsBack() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        String url = TestDatabase.jdbcUrl();
        DatabaseHealth health = new DatabaseHealth();
        health.failed(new SQLException("the connection was reset", "08006"));
        try (AgroalDataSource readOnly = PooledDataSource.create(url + (url.contains("?") ? "&" : "?")
                + "options=-c%20default_transaction_read_only%3Don", "postgres", "postgres", 2)) {
            NodeSession session = new NodeSession(readOnly, new JobSql(new Tables(schema)), "ro-node:1", () -> { },
                    health, new Heartbeats(), "ro-node");
            session.start();
            try {
                assertThat(session.awaitPresence(Duration.ofSeconds(10))).as("it connected and claimed its lock").isTrue();
                Thread.sleep(1500); // several connects, claims and checks
                assertThat(health.reachable()).as("still unreachable for the node: it takes no writes").isFalse();
            } finally {
                session.stop(Duration.ofSeconds(5));
            }
        }
        // The same session on the same schema, its server writable: the node hears the database is back.
        DatabaseHealth writable = new DatabaseHealth();
        writable.failed(new SQLException("the connection was reset", "08006"));
        NodeSession session = new NodeSession(db, new JobSql(new Tables(schema)), "rw-node:1", () -> { },
                writable, new Heartbeats(), "rw-node");
        session.start();
        try {
            io.drover.executor.testing.Jobs.await("the session tells the node the database is back", Duration.ofSeconds(10),
                    writable::reachable);
        } finally {
            session.stop(Duration.ofSeconds(5));
        }
    }

    /**
     * The session's connection goes back to the engine's pool when the session ends or fails on
     * a connection that still works. It went back holding the presence lock (and the LISTEN), for
     * as long as the pool kept the connection: another loop borrowed a connection that proved the
     * node alive after it had stopped. Now the lock is free as soon as the session has ended,
     * the pool still open.
     */
    @Test
    void aSessionThatEndsLeavesNoPresenceLockOnThePooledConnection() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        String owner = "node-x:" + Integer.toHexString(new java.util.Random().nextInt());
        long key = NodePresence.key(schema, owner);
        AtomicInteger looks = new AtomicInteger();
        try (AgroalDataSource pool = PooledDataSource.forEngine(TestDatabase.jdbcUrl(), "postgres", "postgres",
                Duration.ofSeconds(10))) {
            NodeSession session = new NodeSession(pool, new JobSql(new Tables(schema)), owner, looks::incrementAndGet,
                    new DatabaseHealth(), new Heartbeats(), "node-x");
            session.start();
            assertThat(session.awaitPresence(Duration.ofSeconds(10))).isTrue();
            assertThat(free(key)).as("held while the session lives").isFalse();
            session.stop(Duration.ofSeconds(5));
            assertThat(free(key)).as("free once it ended, its connection back in the open pool").isTrue();
            try (Connection c = pool.getConnection(); var s = c.createStatement();
                 ResultSet rs = s.executeQuery("select count(*) from pg_listening_channels()")) {
                rs.next();
                assertThat(rs.getInt(1)).as("channels the pooled connection still listens on").isZero();
            }
        }
    }

    /** Whether the key is free: another session can take it (and gives it back at once). */
    private static boolean free(long key) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("select pg_try_advisory_lock(?)")) {
            ps.setLong(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return false;
                }
            }
            try (PreparedStatement un = c.prepareStatement("select pg_advisory_unlock(?)")) {
                un.setLong(1, key);
                un.execute();
            }
            return true;
        }
    }
}
