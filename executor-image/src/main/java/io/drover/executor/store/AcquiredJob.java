package io.drover.executor.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * A job this node has locked into its queue, with what the node needs to decide whether and how
 * to run it. Payloads up to {@link #INLINE_PAYLOAD_BYTES} come with it; a larger one is read
 * when the job starts ({@link JobStarts}), so a queue of 1,024 jobs holds at most a few
 * megabytes of payloads, not a gigabyte.
 *
 * @param version       the row's version as this acquisition wrote it: the lock tenure. Nothing else
 *                      changes it while the node holds the row, and every outcome matches it, so an
 *                      outcome written twice (its first reply lost) never reaches a later tenure
 * @param attempts      attempts charged so far (by earlier runs; never by queueing)
 * @param payload       the payload, or null when there is none or it is larger than the inline limit
 * @param repeatSeconds the period of a recurring timer in seconds, null for a one-shot job; NaN for a
 *                      period with a day or month part (written with plain SQL: the API writes
 *                      milliseconds), which the engine refuses ({@link JobLimits#repeatProblem})
 * @param crashes       executor nodes that died during a watched run of this job
 * @param deferrals     times a node handed it back unrun for want of a handler
 * @param payloadBytes  the payload's size in bytes (0 if none)
 * @param suspect       a node died holding it: its runs are watched (a start mark first)
 */
public record AcquiredJob(long id, int version, String type, String payload, int attempts, int maxAttempts, Instant dueAt,
                          Double repeatSeconds, int crashes, int deferrals, long payloadBytes, boolean suspect) {

    /** Payloads up to this size come with the acquired row. */
    public static final int INLINE_PAYLOAD_BYTES = 16 * 1024;

    /** {@code JobSchema.ACQUIRE_ORDER} (due_at, id), in which a node's queue takes what it acquired. */
    public static final java.util.Comparator<AcquiredJob> ACQUISITION_ORDER =
            java.util.Comparator.comparing(AcquiredJob::dueAt).thenComparingLong(AcquiredJob::id);

    /** The columns {@link #from} reads, for RETURNING / SELECT lists over the job table aliased {@code j}. */
    public static final String COLUMNS = "j.id, j.type,"
            + " case when octet_length(j.payload) <= " + INLINE_PAYLOAD_BYTES + " then j.payload end,"
            + " j.attempts, j.max_attempts, j.due_at, extract(epoch from j.repeat_interval)::float8, j.crashes,"
            + " j.deferrals, coalesce(octet_length(j.payload), 0), j.suspect, j.version,"
            + " date_part('day', j.repeat_interval) <> 0 or date_part('month', j.repeat_interval) <> 0"
            + " or date_part('year', j.repeat_interval) <> 0";

    public static AcquiredJob from(ResultSet rs) throws SQLException {
        double repeat = rs.getDouble(7);
        Double repeatSeconds = rs.wasNull() ? null : rs.getBoolean(13) ? Double.valueOf(Double.NaN) : repeat;
        return new AcquiredJob(
                rs.getLong(1),
                rs.getInt(12),
                rs.getString(2),
                rs.getString(3),
                rs.getInt(4),
                rs.getInt(5),
                // OffsetDateTime, not Timestamp: no calendar conversion, and 'infinity' maps to a
                // far instant (dead-lettered as out of range) instead of an exception.
                rs.getObject(6, OffsetDateTime.class).toInstant(),
                repeatSeconds,
                rs.getInt(8),
                rs.getInt(9),
                rs.getLong(10),
                rs.getBoolean(11));
    }

    public boolean recurring() {
        return repeatSeconds != null;
    }

    /** The payload did not come with the row: it is read when the job starts. */
    public boolean payloadDeferred() {
        return payloadBytes > INLINE_PAYLOAD_BYTES;
    }
}
