package io.drover.executor.acquire;

import io.drover.executor.store.JobSql;
import io.drover.executor.store.RefusedRows;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

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
        return locker.lock(connection, max).orElseThrow(); // without the global lock, always a page
    }

    @Override
    public RefusedRows leftOut() {
        return locker.leftOut();
    }
}
