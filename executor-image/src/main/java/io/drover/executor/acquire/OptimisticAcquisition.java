package io.drover.executor.acquire;

import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.IndexPlans;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.RefusedRows;
import io.drover.executor.store.SqlErrors;
import io.drover.executor.store.Transactions;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The classic pre-global-lock behaviour, kept so it can be measured against the others: every
 * node reads the same oldest candidates without locking, then claims each with a
 * version-checked update. A claim that updates no row lost the race to another node and is
 * counted as an optimistic lock failure. The claims go in one pipelined batch in one
 * transaction, so nodes queue on each other's row locks exactly as Flowable's revision-checked
 * updates do; a deadlock between two batches loses the page. An explicit transaction, not the
 * batch's implicit one: the driver splits a batch of more than 255 statements with a Sync (its
 * estimate of the replies' size), and in auto-commit each part committed on its own, so a claim
 * that failed past the 255th left the first 255 jobs locked for a node that never held them,
 * until their lock expired.
 */
public final class OptimisticAcquisition implements AcquisitionStrategy {
    private static final String DEADLOCK = "40P01";
    private static final String SERIALIZATION_FAILURE = "40001";

    private final String selectCandidates;
    private final String selectCandidatesLeavingOut;
    private final String claim;
    private final String readClaimed;
    private final String owner;
    private final long lockExpiryMillis;
    private final ExecutorMetrics metrics;
    private final RefusedRows refused;
    private final RefusedRowSearch search;

    /** A due job as read, to be claimed if it is unchanged: where it is (ctid) and which version. */
    private record Candidate(long id, int version, String ctid) {
    }

    public OptimisticAcquisition(JobSql sql, String owner, Duration lockExpiry, ExecutorMetrics metrics) {
        this.selectCandidates = IndexPlans.pinned(sql.selectCandidates());
        this.selectCandidatesLeavingOut = IndexPlans.pinned(sql.selectCandidatesLeavingOut());
        this.refused = new RefusedRows(RefusedRowSearch.LEFT_OUT_FOR);
        this.search = new RefusedRowSearch(sql, owner, lockExpiry, refused);
        this.claim = sql.claimCandidate();
        this.readClaimed = sql.readClaimed();
        this.owner = owner;
        this.lockExpiryMillis = lockExpiry.toMillis();
        this.metrics = metrics;
    }

    @Override
    public Acquisition acquire(Connection c, int max) throws SQLException {
        List<Candidate> candidates = new ArrayList<>(max);
        RefusedRows.Choice statement = refused.choose(selectCandidates, selectCandidatesLeavingOut);
        try (PreparedStatement ps = c.prepareStatement(statement.sql())) {
            ps.setInt(statement.bind(c, ps, 1), max);
            try (ResultSet rs = IndexPlans.executeQuery(ps)) {
                while (rs.next()) {
                    candidates.add(new Candidate(rs.getLong(1), rs.getInt(2), rs.getString(3)));
                }
            }
        }
        if (candidates.isEmpty()) {
            return Acquisition.NONE;
        }
        List<Long> won = new ArrayList<>(candidates.size());
        long sent = System.nanoTime();
        try (PreparedStatement ps = c.prepareStatement(claim)) {
            for (Candidate candidate : candidates) {
                ps.setString(1, owner);
                ps.setLong(2, lockExpiryMillis);
                ps.setString(3, candidate.ctid());
                ps.setLong(4, candidate.id());
                ps.setInt(5, candidate.version());
                ps.addBatch();
            }
            int[] counts = Transactions.run(c, ps::executeBatch);
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] > 0) {
                    won.add(candidates.get(i).id());
                }
            }
        } catch (SQLException e) {
            if (DEADLOCK.equals(e.getSQLState()) || SERIALIZATION_FAILURE.equals(e.getSQLState())) {
                metrics.optimisticLockFailures(candidates.size());
                return Acquisition.CONTENDED;
            }
            if (SqlErrors.rowRefused(e)) {
                // One claim the database refused rolled back the batch: the candidates are
                // claimed by halves instead (by id: their versions no longer matter, only that
                // each is still due and unlocked, which the search's statement checks).
                return search.lockByHalves(c, candidates.stream().map(Candidate::id).toList(), max, e);
            }
            throw e;
        }
        metrics.optimisticLockFailures(candidates.size() - won.size());
        boolean mayHaveMore = candidates.size() == max;
        if (won.isEmpty()) {
            return Acquisition.CONTENDED; // every candidate went to another node: look again
        }
        List<AcquiredJob> jobs = new ArrayList<>(won.size());
        try (PreparedStatement ps = c.prepareStatement(readClaimed)) {
            ps.setArray(1, c.createArrayOf("bigint", won.toArray()));
            ps.setString(2, owner);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    jobs.add(AcquiredJob.from(rs));
                }
            }
        }
        return new Acquisition(jobs, mayHaveMore, sent);
    }

    @Override
    public RefusedRows leftOut() {
        return refused;
    }
}
