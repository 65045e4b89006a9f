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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an acquisition does when its page failed on a row the database refuses to lock (a user's
 * trigger or constraint: {@link SqlErrors#rowRefused}). A page is one statement, so one such
 * row failed it whole; due and unlocked for good, the oldest, it headed the page of every node
 * in every lock mode, and no node acquired anything again. Now the page's candidates are locked
 * by halves, each half a statement and a transaction of its own (auto-commit): a half with a
 * refused row fails, the others lock. A refused row is left out of this node's acquisition for
 * {@link RefusedRows#LEFT_OUT_FOR}, then tried again; it never ran, so it is not dead-lettered
 * (a refusal may be lifted: a trigger fixed, a maintenance window over).
 *
 * <p>The search spends at most {@link #SEARCH_STATEMENTS} failed statements: a few refused rows
 * cost about two per halving, and the rows between them are locked first. When every statement
 * failed, nothing shows the refusals are rows' own (a statement trigger, a revoked right that
 * reads as a row's error, refuses every row): the acquisition fails as before, and only the
 * oldest refused row is left out. Outside Global mode's lock: the halves take their rows as
 * SkipLocked's page does, waiting only for a row another node is locking at that moment.
 */
final class RefusedRowSearch {
    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(RefusedRowSearch.class);
    /** Failed statements one search may spend; see the class comment. */
    static final int SEARCH_STATEMENTS = 64;
    /** {@code JobSchema.ACQUIRE_ORDER}: due_at, id. */
    static final Comparator<AcquiredJob> ACQUISITION_ORDER =
            Comparator.comparing(AcquiredJob::dueAt).thenComparingLong(AcquiredJob::id);

    private final String candidates;
    private final String lockListed;
    private final String owner;
    private final long lockExpiryMillis;
    private final RefusedRows refused;

    RefusedRowSearch(JobSql sql, String owner, Duration lockExpiry, RefusedRows refused) {
        this.candidates = IndexPlans.pinned(sql.selectCandidatesLeavingOut());
        this.lockListed = sql.lockListed();
        this.owner = owner;
        this.lockExpiryMillis = lockExpiry.toMillis();
        this.refused = refused;
    }

    /** After a page of at most {@code limit} failed with {@code refusal}: reads its candidates again, then locks them by halves. */
    Acquisition lockAround(Connection c, int limit, SQLException refusal) throws SQLException {
        List<Long> ids = new ArrayList<>(limit);
        try (PreparedStatement ps = c.prepareStatement(candidates)) {
            ps.setArray(1, c.createArrayOf("bigint", refused.current()));
            ps.setInt(2, limit);
            try (ResultSet rs = IndexPlans.executeQuery(ps)) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        return lockByHalves(c, ids, ids.size() == limit, refusal);
    }

    /**
     * Locks the listed jobs by halves. Jobs a half locked before a failure that is no refusal
     * (the connection lost) are this node's without being held: the stray-lock settle releases
     * them, or their lock expires and a sweep unlocks them, nothing charged.
     *
     * @param mayHaveMore whether the failed page was full
     */
    Acquisition lockByHalves(Connection c, List<Long> ids, boolean mayHaveMore, SQLException refusal) throws SQLException {
        List<AcquiredJob> jobs = new ArrayList<>(ids.size());
        Map<Long, SQLException> refusedNow = new LinkedHashMap<>();
        long sent = System.nanoTime(); // before the first half: the leases count from the earliest
        int passed = lockInto(c, ids, jobs, refusedNow);
        if (passed == 0) {
            // Every statement refused: nothing shows the refusals are rows' own (a statement
            // trigger refuses every row, and a small page's search reaches every one). The
            // acquisition fails as before, and only the oldest refused row is left out: a few
            // refused rows at the head of the backlog are passed one per failed cycle, while a
            // refusal of every row leaves out one row per cycle at the loop's error backoff, not
            // the backlog. (A statement that passed and locked nothing is no such sign: other
            // nodes took its rows meanwhile.)
            refusedNow.entrySet().stream().findFirst().ifPresent(first -> leaveOut(first.getKey(), first.getValue()));
            throw refusal;
        }
        refusedNow.forEach(this::leaveOut);
        jobs.sort(ACQUISITION_ORDER);
        // Look again at once when rows were left out: the next page goes past them.
        return new Acquisition(jobs, mayHaveMore || !refusedNow.isEmpty(), sent);
    }

    private void leaveOut(long id, SQLException why) {
        refused.add(id);
        LOG.errorf("The database refuses to lock job %d for a run (SQLState %s: %s): this node leaves it out of"
                + " its acquisition for %d minutes, then tries again. A trigger or constraint on the job table must"
                + " let the executor update job rows", id, why.getSQLState(), why.getMessage(),
                RefusedRows.LEFT_OUT_FOR.toMinutes());
    }

    /**
     * Breadth first: both halves of a failed part are tried before either is split again, so the
     * rows that lock are taken early and a run of refused rows at the head of the backlog cannot
     * spend the budget before them. Stops when the budget is spent.
     *
     * @return how many statements passed (whether or not they found rows still to lock)
     */
    private int lockInto(Connection c, List<Long> ids, List<AcquiredJob> jobs, Map<Long, SQLException> refusedNow)
            throws SQLException {
        int failures = 0;
        int passed = 0;
        ArrayDeque<List<Long>> parts = new ArrayDeque<>();
        parts.add(ids);
        while (!parts.isEmpty()) {
            List<Long> part = parts.poll();
            if (part.isEmpty()) {
                continue;
            }
            try {
                lockAll(c, part, jobs);
                passed++;
            } catch (SQLException e) {
                if (!SqlErrors.rowRefused(e)) {
                    throw e;
                }
                if (++failures > SEARCH_STATEMENTS) {
                    return passed;
                }
                if (part.size() == 1) {
                    refusedNow.put(part.getFirst(), e);
                } else {
                    int half = part.size() / 2;
                    parts.add(part.subList(0, half));
                    parts.add(part.subList(half, part.size()));
                }
            }
        }
        return passed;
    }

    private void lockAll(Connection c, List<Long> ids, List<AcquiredJob> jobs) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(lockListed)) {
            ps.setString(1, owner);
            ps.setLong(2, lockExpiryMillis);
            ps.setArray(3, c.createArrayOf("bigint", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    jobs.add(AcquiredJob.from(rs));
                }
            }
        }
    }
}
