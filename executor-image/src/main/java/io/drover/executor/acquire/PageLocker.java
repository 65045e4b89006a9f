package io.drover.executor.acquire;

import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.IndexPlans;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.RefusedRows;
import io.drover.executor.store.SqlErrors;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
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
    private final String page;
    private final String pageLeavingOut;
    private final String owner;
    private final long lockExpiryMillis;
    private final GlobalAcquireLock globalLock;
    private final RefusedRows refused;
    private final RefusedRowSearch search;
    /** How long the last page request took, from send to its result or its failure. */
    private long lastRequestNanos;

    /** SkipLocked mode: FOR UPDATE SKIP LOCKED, so nodes skip each other's rows. */
    PageLocker(JobSql sql, String owner, Duration lockExpiry) {
        this(IndexPlans.pinned(sql.lockPage(true)), IndexPlans.pinned(sql.lockPageLeavingOut(true)),
                sql, owner, lockExpiry, null);
    }

    /** Global mode: under the global acquire lock, which no other node holds meanwhile, so nothing to skip. */
    PageLocker(JobSql sql, String owner, Duration lockExpiry, GlobalAcquireLock globalLock) {
        this(GlobalAcquireLock.gate(IndexPlans.pinned(sql.lockPage(false))),
                GlobalAcquireLock.gate(IndexPlans.pinned(sql.lockPageLeavingOut(false))),
                sql, owner, lockExpiry, globalLock);
    }

    private PageLocker(String page, String pageLeavingOut, JobSql sql, String owner, Duration lockExpiry,
                       GlobalAcquireLock globalLock) {
        this.page = page;
        this.pageLeavingOut = pageLeavingOut;
        this.owner = owner;
        this.lockExpiryMillis = lockExpiry.toMillis();
        this.globalLock = globalLock;
        this.refused = new RefusedRows(RefusedRowSearch.LEFT_OUT_FOR);
        this.search = new RefusedRowSearch(sql, owner, lockExpiry, refused);
    }

    /**
     * How long the last page request took, from its send to its result or failure: in Global mode
     * the longest it held the global acquire lock, which its commit or rollback frees. A search
     * for refused rows after a failed page runs without the lock and is not part of it.
     */
    long lastRequestNanos() {
        return lastRequestNanos;
    }

    /** The rows left out (for the acquiring thread). */
    RefusedRows leftOut() {
        return refused;
    }

    /**
     * Runs in auto-commit mode. A page the database refuses for one of its rows is taken by the
     * {@link RefusedRowSearch} instead, outside the global lock in Global mode (the failed
     * request's rollback freed it).
     *
     * @return the page (no jobs when nothing is due); empty only in Global mode, when another
     *         node held the global acquire lock
     */
    Optional<Acquisition> lock(Connection c, int limit) throws SQLException {
        try {
            return lockPage(c, limit);
        } catch (SQLException e) {
            if (!SqlErrors.rowRefused(e) || globalLock != null && GlobalAcquireLock.gateBroken(e)) {
                throw e;
            }
            return Optional.of(search.lockAround(c, limit, e));
        }
    }

    private Optional<Acquisition> lockPage(Connection c, int limit) throws SQLException {
        RefusedRows.Choice statement = refused.choose(page, pageLeavingOut);
        try (PreparedStatement ps = c.prepareStatement(statement.sql())) {
            int next = 1;
            if (globalLock != null) {
                globalLock.bindTry(ps);
                next += GlobalAcquireLock.GATE_PARAMETERS;
            }
            next = statement.bind(c, ps, next);
            ps.setInt(next, limit);
            ps.setString(next + 1, owner);
            ps.setLong(next + 2, lockExpiryMillis);
            long sent = System.nanoTime();
            try {
                ps.execute();
            } finally {
                lastRequestNanos = System.nanoTime() - sent;
            }
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
            jobs.sort(AcquiredJob.ACQUISITION_ORDER);
            return Optional.of(new Acquisition(jobs, jobs.size() == limit, sent));
        }
    }
}
