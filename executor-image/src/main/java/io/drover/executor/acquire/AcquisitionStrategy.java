package io.drover.executor.acquire;

import io.drover.executor.store.RefusedRows;

import java.sql.Connection;
import java.sql.SQLException;

/** Locks a page of due jobs for this node. One implementation per {@link LockMode}. */
public interface AcquisitionStrategy {
    /**
     * Locks at most {@code max} due, unlocked jobs. The connection is in auto-commit mode on
     * entry and must be left so; the jobs are committed as locked by this node on return.
     */
    Acquisition acquire(Connection connection, int max) throws SQLException, InterruptedException;

    /**
     * The due rows the database refused to lock, which this strategy leaves out for now
     * ({@link RefusedRowSearch}): the loop's idle look at the next due time leaves them out
     * too. For the acquiring thread only.
     */
    RefusedRows leftOut();
}
