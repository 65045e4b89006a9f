package io.drover.executor.acquire;

import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.JobSql;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * One round trip per page: rows another node is locking right now are skipped, not waited
 * for, so nodes never block each other and never fail a lock race.
 */
public final class SkipLockedAcquisition implements AcquisitionStrategy {
    private final PageLocker locker;

    public SkipLockedAcquisition(JobSql sql, String owner, Duration lockExpiry) {
        this.locker = new PageLocker(sql, owner, lockExpiry);
    }

    @Override
    public Acquisition acquire(Connection connection, int max) throws SQLException {
        List<AcquiredJob> jobs = locker.lock(connection, max);
        return new Acquisition(jobs, jobs.size() == max);
    }
}
