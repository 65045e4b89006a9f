package io.drover.executor.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The two writes a job may need right before its handler runs, each for a group of jobs and
 * each matching only rows this node still holds (so a job whose lock went elsewhere is not
 * returned, and is not run here).
 *
 * <p>The <b>start mark</b>, for suspects (a node died holding them): charges the attempt, sets
 * {@code started_at}, renews the lock and reads the payload, committed before the handler runs.
 * A node that dies during such a run leaves the record of it, and recovery counts a crash
 * instead of an attempt. Ordinary jobs start without it (their attempt is charged with their
 * outcome): a write per job would cost most of the throughput, and without a death nothing
 * needs telling apart.
 *
 * <p>The <b>payload read</b>, for ordinary jobs whose payload was too large to come with the
 * acquired row.
 */
public final class JobStarts {
    private final String owner;
    private final long lockExpiryMillis;
    private final String mark;
    private final String payloads;

    public JobStarts(JobSql sql, String owner, Duration lockExpiry) {
        this.owner = owner;
        this.lockExpiryMillis = lockExpiry.toMillis();
        this.mark = sql.markStarted();
        this.payloads = sql.readPayloads();
    }

    /** A job as it starts: the attempt this run is, and its payload. */
    public record Started(int attempt, String payload) {
    }

    /**
     * Writes start marks; returns the jobs still held by this node, now marked started. In a
     * transaction, never auto-committed: a mark a stalled server runs after this node gave up on
     * it (and, its lease run out meanwhile, dropped the job unstarted) would record a run that
     * never happened, which the sweep then counts as a crash, and at maxCrashes as poison
     * (LateStatementsTest). That narrows the window to the COMMIT's own round trip: a COMMIT
     * whose answer is lost leaves the node not knowing, and it hands the job back with the charge
     * given back if the mark went in ({@code JobStarter.FATE_UNKNOWN}). One round trip more per
     * group of suspects.
     */
    public Map<Long, Started> mark(Connection c, Collection<Long> ids) throws SQLException {
        return Transactions.run(c, () -> {
            try (PreparedStatement ps = c.prepareStatement(mark)) {
                ps.setLong(1, lockExpiryMillis);
                ps.setArray(2, c.createArrayOf("bigint", ids.toArray()));
                ps.setString(3, owner);
                return read(ps, ids.size());
            }
        });
    }

    /** Reads the payloads of jobs still held by this node. */
    public Map<Long, Started> payloads(Connection c, Collection<Long> ids) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(payloads)) {
            ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
            ps.setString(2, owner);
            return read(ps, ids.size());
        }
    }

    private static Map<Long, Started> read(PreparedStatement ps, int size) throws SQLException {
        Map<Long, Started> started = new HashMap<>(size * 2);
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                started.put(rs.getLong(1), new Started(rs.getInt(2), rs.getString(3)));
            }
        }
        return started;
    }
}
