package io.drover.executor.acquire;

import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.IndexPlans;
import io.drover.executor.store.JobSql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Selects the oldest due, unlocked jobs and locks them for this node in one statement
 * ({@link JobSql#lockPage}), with the plan pinned ({@link IndexPlans}), and hands them on in
 * acquisition order.
 */
final class PageLocker {
    /** {@code JobSchema.ACQUIRE_ORDER}: due_at, id. */
    private static final Comparator<AcquiredJob> ACQUISITION_ORDER =
            Comparator.comparing(AcquiredJob::dueAt).thenComparingLong(AcquiredJob::id);
    private final String sql;
    private final String owner;
    private final long lockExpiryMillis;

    /** @param skipLocked add FOR UPDATE SKIP LOCKED (SkipLocked mode); Global mode needs none */
    PageLocker(JobSql sql, String owner, Duration lockExpiry, boolean skipLocked) {
        this.sql = IndexPlans.pinned(sql.lockPage(skipLocked));
        this.owner = owner;
        this.lockExpiryMillis = lockExpiry.toMillis();
    }

    /**
     * Runs in the caller's transaction (Global mode), or in auto-commit mode as one request, its
     * own transaction (SkipLocked): one round trip either way.
     */
    List<AcquiredJob> lock(Connection c, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, limit);
            ps.setString(2, owner);
            ps.setLong(3, lockExpiryMillis);
            List<AcquiredJob> jobs = new ArrayList<>(limit);
            try (ResultSet rs = IndexPlans.executeQuery(ps)) {
                while (rs.next()) {
                    jobs.add(AcquiredJob.from(rs));
                }
            }
            // The update returns the page in TID order; the queue takes it in acquisition order
            // (due, then first-in first-out). Here, not in SQL: an ORDER BY would be a sort, which
            // the pinned plan disables.
            jobs.sort(ACQUISITION_ORDER);
            return jobs;
        }
    }
}
