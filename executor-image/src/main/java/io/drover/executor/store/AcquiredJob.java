package io.drover.executor.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * A job this node has locked into its queue. It carries what the node needs to decide whether
 * and how to run it, but not the payload: payloads (up to 1 MB each) are read by the start mark
 * of the few jobs about to run ({@link JobStarts}), so a queue of 1,024 jobs holds kilobytes,
 * not a gigabyte.
 *
 * @param attempts      attempts charged so far (charged when a job starts, not when it is locked)
 * @param repeatSeconds the period of a recurring timer in seconds, null for a one-shot job
 * @param crashes       executor nodes that died while running this job
 * @param deferrals     times a node handed it back unrun for want of a handler
 * @param payloadBytes  the payload's size in bytes (0 if none)
 */
public record AcquiredJob(long id, String type, int attempts, int maxAttempts, Instant dueAt,
                          Double repeatSeconds, int crashes, int deferrals, long payloadBytes) {

    /** The columns {@link #from} reads, for RETURNING / SELECT lists over the job table aliased {@code j}. */
    public static final String COLUMNS = "j.id, j.type, j.attempts, j.max_attempts, j.due_at,"
            + " extract(epoch from j.repeat_interval)::float8, j.crashes, j.deferrals,"
            + " coalesce(octet_length(j.payload), 0)";

    public static AcquiredJob from(ResultSet rs) throws SQLException {
        double repeat = rs.getDouble(6);
        Double repeatSeconds = rs.wasNull() ? null : repeat;
        return new AcquiredJob(
                rs.getLong(1),
                rs.getString(2),
                rs.getInt(3),
                rs.getInt(4),
                // OffsetDateTime, not Timestamp: no calendar conversion, and 'infinity' maps to a
                // far instant (dead-lettered as out of range) instead of an exception.
                rs.getObject(5, OffsetDateTime.class).toInstant(),
                repeatSeconds,
                rs.getInt(7),
                rs.getInt(8),
                rs.getLong(9));
    }

    public boolean recurring() {
        return repeatSeconds != null;
    }
}
