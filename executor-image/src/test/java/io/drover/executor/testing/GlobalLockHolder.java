package io.drover.executor.testing;

import io.drover.executor.acquire.GlobalAcquireLock;
import io.drover.executor.store.JobSql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Another party holding a schema's global acquire lock, for tests: takes it in the connection's
 * open transaction and keeps it until that transaction ends, bounded as a holder that freezes
 * would be ({@link JobSql#TRY_BOUNDED_LOCK}: the server ends it after {@code maxHold} idle).
 */
public final class GlobalLockHolder {
    private GlobalLockHolder() {
    }

    /** @return true if the lock was taken (the connection must not be in auto-commit mode) */
    public static boolean take(Connection c, String schema, Duration maxHold) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(JobSql.TRY_BOUNDED_LOCK)) {
            ps.setString(1, Long.toString(maxHold.toMillis()));
            ps.setString(2, Long.toString(maxHold.toMillis()));
            ps.setLong(3, GlobalAcquireLock.keyFor(schema));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(3);
            }
        }
    }
}
