package io.drover.executor.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Pins the plan of the acquisition statements for the current transaction. A queue's
 * acquisition has one right plan: walk job_acquire_idx in order, stop after the page, update
 * the rows where they are (a TID scan, see JobSql#lockPage). PostgreSQL's cost model does not
 * always find it: on a burst of jobs not yet analyzed it bitmap-scans and sorts the whole due
 * set, and on an analyzed backlog it may hash-join a page of 512 over a scan of the whole table (both measured:
 * 30-100 jobs/s instead of ~900, see AcquisitionPlanTest). SET LOCAL of the planner switches
 * leaves the index plans as the only ones, for this transaction only: pooled connections are
 * shared with handlers and must not change. JIT compilation is off too: a disabled plan node is
 * costed at 10^10, far above jit_above_cost, and compiling one page's statement took 300 ms
 * (measured on PostgreSQL 15 with LLVM) where running it takes one.
 */
public final class IndexPlans {
    // Not in JobSql with the statements: it names no table and no predicate, only planner
    // settings, and it means nothing apart from the reason above for pinning, which it serves.
    private static final String SQL = "select set_config('enable_seqscan', 'off', true),"
            + " set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true),"
            + " set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true),"
            + " set_config('jit', 'off', true)";

    private IndexPlans() {
    }

    /** Applies to the connection's current transaction (it must not be in auto-commit). */
    public static void pin(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SQL)) {
            ps.execute();
        }
    }

    /** Runs {@code work} with the plans pinned, in the caller's transaction or in one of its own. */
    public static <T> T inTransaction(Connection c, Transactions.SqlWork<T> work) throws SQLException {
        return Transactions.run(c, () -> {
            pin(c);
            return work.run();
        });
    }
}
