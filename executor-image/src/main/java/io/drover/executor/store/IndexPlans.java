package io.drover.executor.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Pins the plan of the acquisition statements. A queue's acquisition has one right plan: walk
 * job_acquire_idx in order, stop after the page, update the rows where they are (a TID scan, see
 * JobSql#lockPage). PostgreSQL's cost model does not always find it: on a burst of jobs not yet
 * analyzed it bitmap-scans and sorts the whole due set, and on an analyzed backlog it may
 * hash-join a page of 512 over a scan of the whole table (both measured: 30-100 jobs/s instead of
 * ~900, see AcquisitionPlanTest). Turning the planner's other choices off for the transaction
 * (set_config with is_local) leaves the index plans as the only ones, for that transaction only:
 * the engine's connections run other statements too, whose plans must not change. JIT
 * compilation is off too: a disabled plan node is costed at 10^10, far above jit_above_cost, and
 * compiling one page's statement took 300 ms (measured on PostgreSQL 15 with LLVM) where running
 * it takes one.
 *
 * <p>The pin travels with its statement ({@link #pinned}): pgjdbc sends both statements of one
 * PreparedStatement before a single Sync, and the server runs everything up to a Sync in one
 * transaction, an implicit one in auto-commit mode. So an acquisition in auto-commit mode is one
 * round trip and one commit, where a BEGIN, the pin, the page and a COMMIT were four round trips
 * (a third of a no-op drain's acquirer CPU went to socket calls; docs/benchmarks/profile.md).
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

    /** Applies to the connection's current transaction (it must not be in auto-commit): for EXPLAIN. */
    public static void pin(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SQL)) {
            ps.execute();
        }
    }

    /**
     * The statement preceded by the pin, to prepare as one PreparedStatement (its parameters are
     * the statement's) and run with {@link #executeQuery}: in the connection's transaction, or in
     * auto-commit mode in the implicit transaction of the one request.
     */
    public static String pinned(String statement) {
        return SQL + "; " + statement;
    }

    /** Runs a statement prepared from {@link #pinned} and returns its result, past the pin's. */
    public static ResultSet executeQuery(PreparedStatement ps) throws SQLException {
        ps.execute();
        return pastPin(ps);
    }

    /**
     * The result after the pin's, once the statement ran and its current result is the pin's
     * (a request with a statement of its own before the pinned one reads that first).
     */
    public static ResultSet pastPin(PreparedStatement ps) throws SQLException {
        if (!ps.getMoreResults()) {
            throw new IllegalStateException("a pinned statement returned no result after the pin's");
        }
        return ps.getResultSet();
    }
}
