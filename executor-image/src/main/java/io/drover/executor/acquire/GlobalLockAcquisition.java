package io.drover.executor.acquire;

import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.RefusedRows;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * One node at a time: take the global acquire lock, lock a page (no row contention is
 * possible, so no SKIP LOCKED or version checks are needed), commit, which frees the lock. All
 * three in one request, one round trip, in auto-commit mode ({@link PageLocker}): the lock is
 * held for the server's work and the commit, never for a round trip of the node's (it was held
 * for three until 2026-11-26: the try's, the page's and the commit's). A node that
 * cannot get the lock polls every {@code globalLockPollInterval} for up to
 * {@code globalLockWaitTime}; each try is a short transaction of its own, so no waiter sits
 * idle in a transaction.
 */
public final class GlobalLockAcquisition implements AcquisitionStrategy {
    private final PageLocker locker;
    private final long waitNanos;
    private final long pollMillis;
    private final ExecutorMetrics metrics;

    public GlobalLockAcquisition(JobSql sql, String owner, Duration lockExpiry, GlobalAcquireLock lock,
                                 Duration waitTime, Duration pollInterval, ExecutorMetrics metrics) {
        this.locker = new PageLocker(sql, owner, lockExpiry, lock);
        this.waitNanos = waitTime.toNanos();
        this.pollMillis = Math.max(1, pollInterval.toMillis());
        this.metrics = metrics;
    }

    @Override
    public Acquisition acquire(Connection c, int max) throws SQLException, InterruptedException {
        long waitStart = System.nanoTime();
        while (true) {
            long tryStart = System.nanoTime();
            Optional<Acquisition> page = locker.lock(c, max);
            if (page.isPresent()) {
                // Seen from the node: the wait until the try that took it, and that try's request,
                // which held the lock from the server's grant to its commit (an upper bound); not
                // a search for refused rows after a failed page, which runs without the lock.
                metrics.globalLockAcquired(tryStart - waitStart);
                metrics.globalLockReleased(locker.lastRequestNanos());
                return page.get();
            }
            if (System.nanoTime() - waitStart >= waitNanos) {
                metrics.globalLockWaitTimedOut(System.nanoTime() - waitStart);
                return Acquisition.CONTENDED;
            }
            Thread.sleep(pollMillis);
        }
    }

    @Override
    public RefusedRows leftOut() {
        return locker.leftOut();
    }
}
