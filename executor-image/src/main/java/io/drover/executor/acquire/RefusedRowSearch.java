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
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an acquisition does when its page failed on a row the database refuses to lock (a user's
 * trigger or constraint: {@link SqlErrors#rowRefused}). A page is one statement, so one such
 * row failed it whole; due and unlocked for good, the oldest, it headed the page of every node
 * in every lock mode, and until 2026-11-28 no node acquired anything again. Now the page's
 * candidates are locked by halves, each half a statement and a transaction of its own
 * (auto-commit): a half with a refused row fails, the others lock. A refused row is left out of
 * this node's acquisition for {@link #LEFT_OUT_FOR}, then tried again; it never ran, so it is
 * not dead-lettered (a refusal may be lifted: a trigger fixed, a maintenance window over).
 *
 * <p>The search first goes depth first down the oldest failing half to one row, so every search
 * isolates at least one refused row (about log2(page) failed statements) however many follow
 * it; then breadth first through the halves met on the way, so the rows that lock are taken
 * before more refused ones are sought. It spends at most {@link #SEARCH_STATEMENTS} failed
 * statements; the halves it did not reach stay due for the next cycle. When no half locked a
 * row and more jobs are due past the page, the next pages are tried ({@link #pastTheRun}): a run
 * of refused rows longer than one search covers holds up nothing, while a trigger refusing every
 * row fails the acquisition as before, at the loop's error backoff, which bounds what it leaves
 * out to a few rows per failed cycle, for a minute.
 *
 * <p>Its halves skip rows another session is locking (SKIP LOCKED), in every mode, so the search
 * never waits for a row and cannot deadlock with another node's page or claims; in Global mode
 * it runs outside the global lock (the failed request's rollback freed it).
 */
final class RefusedRowSearch {
    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(RefusedRowSearch.class);
    /** Failed statements one search may spend; see the class comment. */
    static final int SEARCH_STATEMENTS = 64;
    /**
     * How long a refused row is left out before it is tried again: short, since a refusal of
     * every row leaves rows out too, and they should run soon after it is lifted; a row the
     * database goes on refusing costs its node about two failed statements a minute.
     */
    static final Duration LEFT_OUT_FOR = Duration.ofMinutes(1);

    private final String candidates;
    private final String lockListed;
    private final String owner;
    private final long lockExpiryMillis;
    private final RefusedRows refused;

    RefusedRowSearch(JobSql sql, String owner, Duration lockExpiry, RefusedRows refused) {
        this.candidates = IndexPlans.pinned(sql.selectCandidatesLeavingOut());
        this.lockListed = IndexPlans.pinned(sql.lockListed());
        this.owner = owner;
        this.lockExpiryMillis = lockExpiry.toMillis();
        this.refused = refused;
    }

    /** After a page of at most {@code limit} failed with {@code refusal}: reads its candidates again, then locks them by halves. */
    Acquisition lockAround(Connection c, int limit, SQLException refusal) throws SQLException {
        List<Long> ids = candidates(c, limit, refused.current());
        return lockByHalves(c, ids, limit, refusal);
    }

    /** The oldest due, unlocked jobs' ids but those left out, at most {@code limit}. */
    private List<Long> candidates(Connection c, int limit, Long[] leftOut) throws SQLException {
        List<Long> ids = new ArrayList<>(limit);
        try (PreparedStatement ps = c.prepareStatement(candidates)) {
            ps.setArray(1, c.createArrayOf("bigint", leftOut));
            ps.setInt(2, limit);
            try (ResultSet rs = IndexPlans.executeQuery(ps)) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        return ids;
    }

    /**
     * Locks the listed jobs by halves (see the class comment).
     *
     * @param limit the failed page's size: a page of fewer ids held every due job not left out
     */
    Acquisition lockByHalves(Connection c, List<Long> ids, int limit, SQLException refusal) throws SQLException {
        Search search = new Search(c, ids.size());
        long sent = System.nanoTime(); // before the first half: the leases count from the earliest
        try {
            search.run(ids);
        } catch (SQLException e) {
            // No row's own failure (a deadlock, a timeout, the connection lost): the halves
            // locked before it are committed to this node. Lost connection: thrown, so the loop
            // releases this node's rows it does not hold once that session ended (StrayLocks),
            // these and a half the server may yet run. Otherwise they are handed on; the next
            // cycle meets the failure again if it lasts.
            if (search.jobs.isEmpty() || SqlErrors.connectionLost(e)) {
                throw e;
            }
            LOG.warnf("Searching a page for the rows the database refuses to lock ended early (%s: %s); the %d jobs"
                    + " locked so far are taken", e.getSQLState(), e.getMessage(), search.jobs.size());
        }
        search.refusedNow.forEach(this::leaveOut);
        boolean full = ids.size() == limit;
        if (search.jobs.isEmpty() && full) {
            return pastTheRun(search, ids, limit, refusal, sent);
        }
        search.jobs.sort(AcquiredJob.ACQUISITION_ORDER);
        // Look again at once when rows were left out: the next page goes past them. A page of
        // fewer than asked held every due job: nothing is left to prove a refusal is a row's own,
        // nor to fail for (an idle node whose only due row is refused would fail every minute).
        return new Acquisition(search.jobs, full || !search.refusedNow.isEmpty(), sent);
    }

    /**
     * No half locked a row, and more jobs are due past the page: a run of refused rows longer than
     * the search covers, or a refusal of every row. The next pages, each in one statement (at most
     * {@link #PAGES_PAST}), tell them apart: a page whose rows lock is taken now (the run is
     * isolated further in later cycles); one that locks nothing without being refused (other
     * nodes took its rows, or none is left) ends the cycle quietly; when every one is refused the
     * acquisition fails as before, at the loop's error backoff.
     */
    private Acquisition pastTheRun(Search search, List<Long> page, int limit, SQLException refusal, long sent)
            throws SQLException {
        List<Long> passed = new ArrayList<>(page);
        for (int i = 0; i < PAGES_PAST; i++) {
            Long[] leftOut = java.util.stream.Stream.concat(java.util.Arrays.stream(refused.current()), passed.stream())
                    .toArray(Long[]::new);
            List<Long> next = candidates(search.c, limit, leftOut);
            List<AcquiredJob> jobs = new ArrayList<>(next.size());
            try {
                search.lockAll(next, jobs);
            } catch (SQLException e) {
                if (!SqlErrors.rowRefused(e)) {
                    throw e;
                }
                if (next.size() == limit) {
                    passed.addAll(next);
                    continue;
                }
                // The rest of the backlog, refused too: nothing left to tell a run from a refusal
                // of every row, nor to fail for; the search goes on next cycle past what it isolated.
                return new Acquisition(List.of(), !search.refusedNow.isEmpty(), sent);
            }
            jobs.sort(AcquiredJob.ACQUISITION_ORDER);
            return new Acquisition(jobs, true, sent);
        }
        throw refusal;
    }

    /** Pages one cycle tries past a run of refused rows before it fails: a run of up to this many pages holds up nothing. */
    static final int PAGES_PAST = 8;

    private void leaveOut(long id, SQLException why) {
        refused.add(id);
        LOG.errorf("The database refuses to lock job %d for a run (SQLState %s: %s): this node leaves it out of"
                + " its acquisition for %d s, then tries again. A trigger or constraint on the job table must let the"
                + " executor update job rows", id, why.getSQLState(), why.getMessage(), LEFT_OUT_FOR.toSeconds());
    }

    /** One search's state: what it locked, which rows it found refused, how many statements failed. */
    private final class Search {
        final Connection c;
        final List<AcquiredJob> jobs;
        final Map<Long, SQLException> refusedNow = new LinkedHashMap<>();
        private int failed;

        Search(Connection c, int size) {
            this.c = c;
            this.jobs = new ArrayList<>(size);
        }

        void run(List<Long> ids) throws SQLException {
            // Depth first until one row is isolated (the next part is the last added, the older
            // half), then breadth first (the first added).
            Deque<List<Long>> parts = new ArrayDeque<>();
            parts.add(ids);
            while (!parts.isEmpty() && failed < SEARCH_STATEMENTS) {
                boolean descending = refusedNow.isEmpty();
                List<Long> part = descending ? parts.pollLast() : parts.pollFirst();
                if (part.isEmpty()) {
                    continue;
                }
                try {
                    lockAll(part, jobs);
                } catch (SQLException e) {
                    if (!SqlErrors.rowRefused(e)) {
                        throw e;
                    }
                    failed++;
                    if (part.size() == 1) {
                        refusedNow.put(part.getFirst(), e);
                        continue;
                    }
                    List<Long> older = part.subList(0, part.size() / 2);
                    List<Long> younger = part.subList(part.size() / 2, part.size());
                    if (descending) {
                        parts.addLast(younger);
                        parts.addLast(older);
                    } else {
                        parts.addLast(older);
                        parts.addLast(younger);
                    }
                }
            }
        }

        /** Locks those of {@code ids} still due and unlocked, skipping rows others lock, into {@code into}. */
        void lockAll(List<Long> ids, List<AcquiredJob> into) throws SQLException {
            if (ids.isEmpty()) {
                return;
            }
            try (PreparedStatement ps = c.prepareStatement(lockListed)) {
                ps.setString(1, owner);
                ps.setLong(2, lockExpiryMillis);
                ps.setArray(3, c.createArrayOf("bigint", ids.toArray()));
                try (ResultSet rs = IndexPlans.executeQuery(ps)) {
                    while (rs.next()) {
                        into.add(AcquiredJob.from(rs));
                    }
                }
            }
        }
    }
}
