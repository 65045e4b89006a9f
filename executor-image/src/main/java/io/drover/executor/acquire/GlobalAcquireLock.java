package io.drover.executor.acquire;

import io.drover.executor.store.AdvisoryKeys;
import io.drover.executor.store.JobSql;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The fleet-wide acquire lock: a transaction-scoped PostgreSQL advisory lock.
 *
 * <p>Flowable keeps its global lock as a row holding "timestamp - hostname" and lets others
 * overwrite it only after {@code forceAcquireAfter} (10 minutes), so a crashed holder stalls
 * every node for that long. An advisory xact lock belongs to the holder's transaction: the
 * server frees it when the transaction ends or the connection drops (a killed process, a
 * failed-over client). A holder that hangs with the transaction open (GC pause, frozen VM) is
 * bounded too: the lock transaction sets {@code idle_in_transaction_session_timeout} and
 * {@code statement_timeout} to {@code globalLockMaxHold}, so the server ends it. The engine
 * takes it in a request that also locks the page and commits ({@link #gate}), so its
 * transaction never waits for the node's next statement. (It can wait for the node to read its
 * rows: a page of large payloads sent to a frozen node fills the socket, and the server ends
 * that transaction only when the connection dies, as it did when the page was a request of its
 * own.)
 *
 * <p>The key is derived from the schema name, so clusters in different schemas of one
 * database have independent locks.
 */
public final class GlobalAcquireLock {
    /** The parameters {@link #gate} puts before its statement's. */
    static final int GATE_PARAMETERS = 3;
    /** See {@link #gateBroken}. */
    private static final String GATE_BROKEN = "22P02";

    /**
     * Whether a page statement failed as it does when its request was split in two transactions
     * (the gate's setting reads '' there: not a boolean, see JobSql): a data exception (class
     * 22), which SqlErrors would take for a refused row, never to be searched around outside the
     * lock. Raised by the statement itself, so with no PL/pgSQL context; the same state from a
     * user's trigger has one, and is a refused row.
     */
    static boolean gateBroken(java.sql.SQLException e) {
        return GATE_BROKEN.equals(e.getSQLState()) && !(e instanceof org.postgresql.util.PSQLException p
                && p.getServerErrorMessage() != null && p.getServerErrorMessage().getWhere() != null);
    }

    private final long key;
    private final String maxHoldMillis;

    public GlobalAcquireLock(String schema, Duration maxHold) {
        this.key = keyFor(schema);
        this.maxHoldMillis = Long.toString(maxHold.toMillis());
    }

    /**
     * The lock's try ({@link JobSql#TRY_GLOBAL_LOCK}) before a statement, to prepare as one
     * PreparedStatement: its first {@link #GATE_PARAMETERS} parameters are the try's
     * ({@link #bindTry}), then the statement's; run, its first result is the try's ({@link #taken}).
     */
    static String gate(String statement) {
        return JobSql.TRY_GLOBAL_LOCK + "; " + statement;
    }

    void bindTry(PreparedStatement ps) throws SQLException {
        ps.setString(1, maxHoldMillis);
        ps.setString(2, maxHoldMillis);
        ps.setLong(3, key);
    }

    /** Whether the gate's try took the lock, read from the current result (the try's); moves on to the next. */
    static boolean taken(PreparedStatement ps) throws SQLException {
        boolean taken;
        try (ResultSet rs = ps.getResultSet()) {
            taken = rs.next() && "true".equals(rs.getString(3));
        }
        if (!ps.getMoreResults()) {
            throw new IllegalStateException("the global lock's try was the request's only statement");
        }
        return taken;
    }

    /** The advisory lock's key for the clusters of a schema. */
    public static long keyFor(String schema) {
        return AdvisoryKeys.of("drover.global-acquire-lock:" + schema);
    }
}
