package io.drover.executor.acquire;

import io.drover.executor.store.AdvisoryKeys;
import io.drover.executor.store.JobSql;

import java.sql.Connection;
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
 * transaction never waits on the node at all.
 *
 * <p>The key is derived from the schema name, so clusters in different schemas of one
 * database have independent locks.
 */
public final class GlobalAcquireLock {
    /** The parameters {@link #gate} puts before its statement's. */
    static final int GATE_PARAMETERS = 3;

    private final long key;
    private final String maxHoldMillis;

    public GlobalAcquireLock(String schema, Duration maxHold) {
        this.key = keyFor(schema);
        this.maxHoldMillis = Long.toString(maxHold.toMillis());
    }

    /**
     * Tries once, without waiting, inside the connection's current transaction. One round
     * trip: the timeouts are set in the same statement ({@link JobSql#TRY_BOUNDED_LOCK}).
     */
    public boolean tryLock(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(JobSql.TRY_BOUNDED_LOCK)) {
            bindTry(ps);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(3);
            }
        }
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

    public long key() {
        return key;
    }

    static long keyFor(String schema) {
        return AdvisoryKeys.of("drover.global-acquire-lock:" + schema);
    }
}
