package io.drover.executor.acquire;

import io.drover.executor.store.IndexPlans;
import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.Tables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Selects the oldest due, unlocked jobs and locks them for this node in one statement.
 * The selection is an ordered range scan of job_acquire_idx that stops after {@code limit}
 * rows; the update then finds them by primary key. It re-checks {@code locked_by is null}, so
 * a row changed between the scan and the update (swept, deleted, taken) is skipped rather
 * than stolen.
 */
final class PageLocker {
    final String sql; // package-private: AcquisitionPlanTest checks its plan
    private final String owner;
    private final long lockExpiryMillis;

    /** @param skipLocked add FOR UPDATE SKIP LOCKED (SkipLocked mode); Global mode needs none */
    PageLocker(Tables tables, String owner, Duration lockExpiry, boolean skipLocked) {
        this.owner = owner;
        this.lockExpiryMillis = lockExpiry.toMillis();
        // Run with the plan pinned to index scans and a nested loop on the primary key
        // (IndexPlans); see AcquisitionPlanTest.
        this.sql = "with picked as ("
                + " select id from " + tables.job()
                + " where locked_by is null and due_at <= now()"
                + " order by due_at, id limit ?"
                + (skipLocked ? " for update skip locked" : "")
                + ") update " + tables.job() + " j"
                + " set locked_by = ?, lock_expires_at = now() + ? * interval '1 millisecond',"
                + " version = j.version + 1"
                + " from picked where j.id = picked.id and j.locked_by is null"
                + " returning " + AcquiredJob.COLUMNS;
    }

    /** Runs in the caller's transaction (Global mode) or in one of its own (SkipLocked). */
    List<AcquiredJob> lock(Connection c, int limit) throws SQLException {
        return IndexPlans.inTransaction(c, () -> lockPinned(c, limit));
    }

    private List<AcquiredJob> lockPinned(Connection c, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, limit);
            ps.setString(2, owner);
            ps.setLong(3, lockExpiryMillis);
            List<AcquiredJob> jobs = new ArrayList<>(limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    jobs.add(AcquiredJob.from(rs));
                }
            }
            return jobs;
        }
    }
}
