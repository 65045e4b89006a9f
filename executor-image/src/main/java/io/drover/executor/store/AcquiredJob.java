package io.drover.executor.store;

import io.drover.executor.handler.JobContext;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/** A job this node has locked and will run. {@code attempt} already counts this run. */
public record AcquiredJob(long id, String type, String payload, int attempt, int maxAttempts, Instant dueAt,
                          boolean recurring) {

    /** The columns {@link #from} reads, for RETURNING / SELECT lists over the job table aliased {@code j}. */
    public static final String COLUMNS =
            "j.id, j.type, j.payload, j.attempts, j.max_attempts, j.due_at, j.repeat_interval is not null";

    public static AcquiredJob from(ResultSet rs) throws SQLException {
        return new AcquiredJob(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getInt(4),
                rs.getInt(5),
                rs.getTimestamp(6).toInstant(),
                rs.getBoolean(7));
    }

    public JobContext context() {
        return new JobContext(id, type, payload, attempt, maxAttempts, dueAt);
    }
}
