package io.drover.executor.acquire;

import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.Transactions;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * One node at a time: take the global acquire lock, lock a page (no row contention is
 * possible, so no SKIP LOCKED or version checks are needed), commit, which frees the lock.
 * A node that cannot get the lock polls every {@code globalLockPollInterval} for up to
 * {@code globalLockWaitTime}, each try in its own short transaction so no waiter sits idle in
 * a transaction.
 */
public final class GlobalLockAcquisition implements AcquisitionStrategy {
    private final GlobalAcquireLock lock;
    private final PageLocker locker;
    private final long waitNanos;
    private final long pollMillis;
    private final ExecutorMetrics metrics;

    public GlobalLockAcquisition(JobSql sql, String owner, Duration lockExpiry, GlobalAcquireLock lock,
                                 Duration waitTime, Duration pollInterval, ExecutorMetrics metrics) {
        this.lock = lock;
        this.locker = new PageLocker(sql, owner, lockExpiry, false);
        this.waitNanos = waitTime.toNanos();
        this.pollMillis = Math.max(1, pollInterval.toMillis());
        this.metrics = metrics;
    }

    @Override
    public Acquisition acquire(Connection c, int max) throws SQLException, InterruptedException {
        long waitStart = System.nanoTime();
        c.setAutoCommit(false);
        try {
            while (!lock.tryLock(c)) {
                c.rollback();
                if (System.nanoTime() - waitStart >= waitNanos) {
                    metrics.globalLockWaitTimedOut(System.nanoTime() - waitStart);
                    c.setAutoCommit(true);
                    return Acquisition.CONTENDED;
                }
                Thread.sleep(pollMillis);
            }
            long holdStart = System.nanoTime();
            metrics.globalLockAcquired(holdStart - waitStart);
            List<AcquiredJob> jobs = locker.lock(c, max);
            c.commit();
            metrics.globalLockReleased(System.nanoTime() - holdStart);
            c.setAutoCommit(true);
            return new Acquisition(jobs, jobs.size() == max);
        } catch (Throwable e) {
            // Rolled back whatever failed, an Error too: restoring auto-commit on the open
            // transaction would commit a page no queue ever received. On a broken connection the
            // pool discards it and the server frees the lock.
            Transactions.abandon(c, e);
            throw e;
        }
    }
}
