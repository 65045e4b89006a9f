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
 * {@code statement_timeout} to {@code globalLockMaxHold}, so the server ends it.
 *
 * <p>The key is derived from the schema name, so clusters in different schemas of one
 * database have independent locks.
 */
public final class GlobalAcquireLock {
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
            ps.setString(1, maxHoldMillis);
            ps.setString(2, maxHoldMillis);
            ps.setLong(3, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(3);
            }
        }
    }

    public long key() {
        return key;
    }

    static long keyFor(String schema) {
        return AdvisoryKeys.of("drover.global-acquire-lock:" + schema);
    }
}
