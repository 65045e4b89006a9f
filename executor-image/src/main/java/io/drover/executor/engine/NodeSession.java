package io.drover.executor.engine;

import io.drover.contract.DatabaseDiagnosis;
import io.drover.executor.store.BoundedCalls;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.NodePresence;
import org.jboss.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The node's one long-lived database session. It holds the node's presence lock (a session
 * advisory lock on its owner id: {@link NodePresence}), the proof that this node is alive that
 * a restarted node with the same name checks before it releases jobs; and it LISTENs on the
 * schema's channel to wake the acquirer when jobs are inserted (a trigger notifies; see
 * V2__notify_new_jobs.sql) or handed back by another node. Without notifications a new job
 * waits for the next poll, up to {@code acquireInterval}; polling remains the fallback, e.g.
 * behind a pooler in transaction mode, which drops notifications (and session locks). It
 * reconnects by itself, and is the last thing to stop, so the presence lock outlives the jobs.
 */
final class NodeSession {
    private static final Logger LOG = Logger.getLogger(NodeSession.class);
    private static final int POLL_MILLIS = 500;
    /** Polls between round trips that prove the connection alive. */
    private static final int PING_EVERY = 10;
    private static final long MAX_BACKOFF_MILLIS = 5_000;
    /**
     * How long a call of the session may go unanswered ({@link BoundedCalls}: its connection's
     * socket timeout while it holds it, the pool's put back as it lets go): its calls are a claim,
     * a LISTEN, a note and a ping, none of which waits for anything, and a half-open connection
     * must be found out soon, since a node with the same name trusts a free presence lock only
     * {@link #RECONNECTED_WITHIN} after the server lost its sessions.
     */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

    /**
     * How soon a live node's session is back after the server lost its sessions (a restart, crash
     * recovery, a failover): a half-open connection is found by the next ping (within 5 s) once
     * its call times out ({@link #CALL_TIMEOUT}); then at most the reconnect back-off (5 s) and a
     * connect (10 s). Until then a free presence lock proves nothing.
     */
    static final Duration RECONNECTED_WITHIN = Duration.ofSeconds(30);

    private final DataSource dataSource;
    private final String listen;
    private final String noteEpoch;
    private final long presenceKey;
    private final Runnable onNotification;
    private final DatabaseHealth database;
    private final Heartbeats.Beat beat;
    private final ProblemLog problems = new ProblemLog(LOG, "Holding the node's session (presence, notifications)");
    private final CountDownLatch present = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean stopping;

    NodeSession(DataSource dataSource, JobSql sql, String owner, Runnable onNotification,
                DatabaseHealth database, Heartbeats heartbeats, String nodeName) {
        this.dataSource = new BoundedCalls(dataSource, CALL_TIMEOUT);
        this.listen = sql.listen();
        this.noteEpoch = sql.noteServerEpoch();
        this.presenceKey = NodePresence.key(sql.tables().schema(), owner);
        this.onNotification = onNotification;
        this.database = database;
        this.beat = heartbeats.register("session");
        this.thread = Thread.ofPlatform().daemon().name("drover-session-" + nodeName).unstarted(beat.guarded(this::run, LOG));
    }

    void start() {
        thread.start();
    }

    /** Waits until the presence lock is held (the first connection succeeded), at most {@code timeout}. */
    boolean awaitPresence(Duration timeout) throws InterruptedException {
        return present.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void run() {
        long backoff = 100;
        while (!stopping) {
            beat.beat();
            try (Connection c = dataSource.getConnection()) {
                try {
                    boolean claimed = claimPresence(c);
                    try (Statement s = c.createStatement()) {
                        s.execute(listen);
                    }
                    noteServerEpoch(c);
                    problems.succeeded();
                    database.succeeded();
                    backoff = 100;
                    // Jobs may have arrived while not listening: look once.
                    onNotification.run();
                    serve(c, claimed);
                } finally {
                    letGo(c);
                }
            } catch (Exception e) {
                if (stopping) {
                    return;
                }
                database.failed(e);
                problems.failed(e);
                sleep(backoff);
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
            }
        }
    }

    /** Passes notifications on, and proves the connection alive and writable now and then, until the node stops. */
    private void serve(Connection c, boolean claimed) throws Exception {
        PGConnection pg = c.unwrap(PGConnection.class);
        for (int turn = 1; !stopping; turn++) {
            beat.beat();
            if (turn % PING_EVERY == 0) {
                // getNotifications() swallows a socket timeout: on a half-open connection it
                // would return nothing forever. A round trip finds such a connection out.
                if (claimed) {
                    checkWritable(c);
                } else {
                    claimed = claimPresence(c);
                }
            }
            PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
            if (notifications != null && notifications.length > 0) {
                onNotification.run();
            }
        }
    }

    /**
     * Notes when the server began keeping its sessions, if no node has since it last lost them
     * (its unlogged table is empty then: JobSql#serverSettled). A write: on a server that takes
     * only reads it fails as every write does (25006), and the session does not tell
     * DatabaseHealth the database is back (see {@link #checkWritable}).
     */
    private void noteServerEpoch(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate(noteEpoch);
        }
    }

    /**
     * Fails as the database's own refusal of a write would (25006) when the session's server
     * takes only reads. The session's success tells DatabaseHealth the database is reachable
     * again, and workers then start jobs: on a server that takes only reads (after a failover,
     * the old primary back as a replica; a role switched to read-only) their outcomes could not
     * be written, and they would run again once their locks lapsed. On a primary whose
     * transactions default to read-only, its claim, LISTEN and ping all work (on a standby LISTEN
     * fails already).
     */
    private static void checkWritable(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(JobSql.PING_READ_ONLY)) {
            rs.next();
            if (rs.getBoolean(1)) {
                throw new SQLException("the database takes only reads (the node's session found its server a replica,"
                        + " or its transactions read-only)", DatabaseDiagnosis.READ_ONLY);
            }
        }
    }

    /**
     * Before the connection goes back to the engine's pool (the session ends, or failed on a
     * connection that still works: a read-only server, a statement timeout of the ping): without
     * the presence lock and the LISTEN, which went back to the pool with it and stayed, for
     * another loop's next borrows, until the connection's lifetime ended. Each on its own: on a
     * standby UNLISTEN fails, and the unlock must not wait on it. On a connection that failed
     * these fail too, and the pool discards it.
     */
    private static void letGo(Connection c) {
        for (String statement : JobSql.LET_GO) {
            try (Statement s = c.createStatement()) {
                s.execute(statement);
            } catch (SQLException | RuntimeException ignored) {
                // a broken connection (discarded with its session), or UNLISTEN on a standby
            }
        }
    }

    /** @return false while this node's own previous session still holds the key; it is claimed again later */
    private boolean claimPresence(Connection c) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(JobSql.TRY_PRESENCE_LOCK)) {
            ps.setLong(1, presenceKey);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (rs.getBoolean(1)) {
                    present.countDown();
                    return true;
                }
            }
        }
        // Only this node's own earlier session can hold the key (it is its unique owner id): the
        // server has not yet noticed that the session's connection is gone. Meanwhile that
        // session proves this node alive as well as a new one would.
        present.countDown();
        return false;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ignored) {
            Thread.currentThread().interrupt();
        }
    }

    /** Ends the session; waits at most {@code max} (its ping may hang on a dead connection). */
    void stop(java.time.Duration max) throws InterruptedException {
        stopping = true;
        thread.join(max);
    }
}
