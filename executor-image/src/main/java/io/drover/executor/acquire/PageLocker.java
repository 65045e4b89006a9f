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
import java.util.Optional;

/**
 * Selects the oldest due, unlocked jobs and locks them for this node in one statement
 * ({@link JobSql#lockPage}), with the plan pinned ({@link IndexPlans}), and hands them on in
 * acquisition order. One request in auto-commit mode, so one round trip and one transaction,
 * committed at its end: in Global mode it also takes the global acquire lock first
 * ({@link GlobalAcquireLock#gate}), which that commit frees.
 */
final class PageLocker {
    /** {@code JobSchema.ACQUIRE_ORDER}: due_at, id. */
    private static final Comparator<AcquiredJob> ACQUISITION_ORDER =
            Comparator.comparing(AcquiredJob::dueAt).thenComparingLong(AcquiredJob::id);
    private final String sql;
    private final String owner;
    private final long lockExpiryMillis;
    private final GlobalAcquireLock globalLock;

    /** SkipLocked mode: FOR UPDATE SKIP LOCKED, so nodes skip each other's rows. */
    PageLocker(JobSql sql, String owner, Duration lockExpiry) {
        this(IndexPlans.pinned(sql.lockPage(true)), owner, lockExpiry, null);
    }

    /** Global mode: under the global acquire lock, which no other node holds meanwhile, so nothing to skip. */
    PageLocker(JobSql sql, String owner, Duration lockExpiry, GlobalAcquireLock globalLock) {
        this(GlobalAcquireLock.gate(IndexPlans.pinned(sql.lockPage(false))), owner, lockExpiry, globalLock);
    }

    private PageLocker(String sql, String owner, Duration lockExpiry, GlobalAcquireLock globalLock) {
        this.sql = sql;
        this.owner = owner;
        this.lockExpiryMillis = lockExpiry.toMillis();
        this.globalLock = globalLock;
    }

    /**
     * Runs in auto-commit mode.
     *
     * @return the page (no jobs when nothing is due); empty only in Global mode, when another
     *         node held the global acquire lock
     */
    Optional<Acquisition> lock(Connection c, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int first = 1;
            if (globalLock != null) {
                globalLock.bindTry(ps);
                first += GlobalAcquireLock.GATE_PARAMETERS;
            }
            ps.setInt(first, limit);
            ps.setString(first + 1, owner);
            ps.setLong(first + 2, lockExpiryMillis);
            long sent = System.nanoTime();
            ps.execute();
            boolean taken = globalLock == null || GlobalAcquireLock.taken(ps);
            List<AcquiredJob> jobs = new ArrayList<>(limit);
            try (ResultSet rs = IndexPlans.pastPin(ps)) {
                while (rs.next()) {
                    jobs.add(AcquiredJob.from(rs));
                }
            }
            if (!taken) {
                return Optional.empty(); // and no rows: the page statement takes none unless the lock was taken
            }
            // The update returns the page in TID order; the queue takes it in acquisition order
            // (due, then first-in first-out). Here, not in SQL: an ORDER BY would be a sort, which
            // the pinned plan disables.
            jobs.sort(ACQUISITION_ORDER);
            return Optional.of(new Acquisition(jobs, jobs.size() == limit, sent));
        }
    }
}
