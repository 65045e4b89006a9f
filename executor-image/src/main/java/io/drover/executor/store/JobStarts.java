package io.drover.executor.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The start mark: the one write between "queued" and "running". For a group of jobs about to
 * run it charges the attempt, records {@code started_at}, renews the lock for a full
 * {@code lockExpiry}, and reads the payload, in one statement that matches only rows this node
 * still holds. So a job starts only with its lock confirmed by the database a moment before
 * (a job whose lock was swept while it waited is not returned, and is not run), and a node
 * that dies leaves a record of exactly which jobs it was running.
 */
public final class JobStarts {
    private final String owner;
    private final long lockExpiryMillis;
    private final String sql;

    public JobStarts(Tables t, String owner, Duration lockExpiry) {
        this.owner = owner;
        this.lockExpiryMillis = lockExpiry.toMillis();
        this.sql = "update " + t.job() + " set attempts = attempts + 1, started_at = now(),"
                + " lock_expires_at = now() + ? * interval '1 millisecond'"
                + " where id = any(?) and locked_by = ? returning id, attempts, payload";
    }

    /** A job as it starts: the attempt this run is, and its payload. */
    public record Started(int attempt, String payload) {
    }

    /** @return the jobs still held by this node, now marked started; the others' locks are gone */
    public Map<Long, Started> mark(Connection c, Collection<Long> ids) throws SQLException {
        Map<Long, Started> started = new HashMap<>(ids.size() * 2);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, lockExpiryMillis);
            ps.setArray(2, c.createArrayOf("bigint", ids.toArray()));
            ps.setString(3, owner);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    started.put(rs.getLong(1), new Started(rs.getInt(2), rs.getString(3)));
                }
            }
        }
        return started;
    }
}
