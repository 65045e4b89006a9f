package io.drover.executor.store;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * The gauges' figures of the whole cluster, counted by one node at a time and shared through
 * one row (fleet_figures, V5): every node refreshes its gauges every backlogRefreshInterval, but
 * the backlog (up to 1,000,000 index entries, ~150 ms of database CPU) is counted about once per
 * interval for the fleet, not once per node.
 *
 * <p>A node that finds the row older than the interval counts and stores, if it gets the
 * advisory lock. One that does not (another node counts right now) uses the row, unless the row
 * is older than {@link #TRUSTED_INTERVALS} intervals (after an outage, or with no row yet): then
 * it counts for itself without storing, so a gauge is never older than that. The counting
 * transaction is bounded by {@link #COUNT_TIMEOUT} on the server, so a counting node that freezes
 * cannot keep the lock. Two nodes may both count in one interval (one read the row just before
 * the other stored it); that costs a count, not a wrong figure.
 */
public final class FleetFigures {
    /** Dead letters are counted up to here for the gauge: it is refreshed every few seconds. */
    public static final long DEAD_LETTER_GAUGE_CAP = 10_000;
    /** How old a stored count a node uses while another node holds the lock. */
    static final int TRUSTED_INTERVALS = 3;
    /** The counting transaction's bound (statement and idle in transaction). */
    static final Duration COUNT_TIMEOUT = Duration.ofSeconds(30);
    /**
     * How long a call of a refresh may go unanswered ({@link BoundedCalls}): past the count's own
     * bound, so a slow count ends on the server, which says so (57014), before the client gives up.
     */
    public static final Duration CALL_BOUND = COUNT_TIMEOUT.plusSeconds(5);

    /**
     * Due jobs no node holds (capped at {@link JobQueries#COUNT_CAP}), how late the oldest of them
     * is (0 when none), dead letters (capped at {@link #DEAD_LETTER_GAUGE_CAP}).
     */
    public record DueFigures(long backlog, double oldestLagSeconds, long deadLetters) {
    }

    private final DataSource dataSource;
    private final JobSql sql;
    private final long lockKey;

    public FleetFigures(DataSource dataSource, Tables tables) {
        this.dataSource = dataSource;
        this.sql = new JobSql(tables);
        this.lockKey = AdvisoryKeys.of("drover.fleet-figures:" + tables.schema());
    }

    /** Figures counted less than {@code interval} ago by any node, or counted now. */
    public DueFigures read(Duration interval) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return Transactions.run(c, () -> read(c, interval));
        }
    }

    private DueFigures read(Connection c, Duration interval) throws SQLException {
        Optional<Stored> stored = stored(c);
        if (stored.isPresent() && stored.get().ageMillis() < interval.toMillis()) {
            return stored.get().figures();
        }
        if (tryLock(c)) {
            return query(c, sql.countAndStoreFleetFigures());
        }
        if (stored.isPresent() && stored.get().ageMillis() < TRUSTED_INTERVALS * interval.toMillis()) {
            return stored.get().figures();
        }
        return query(c, sql.countFleetFigures());
    }

    private record Stored(DueFigures figures, long ageMillis) {
    }

    private Optional<Stored> stored(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.readFleetFigures()); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? Optional.of(new Stored(figures(rs), rs.getLong(4))) : Optional.empty();
        }
    }

    private boolean tryLock(Connection c) throws SQLException {
        // One node counts at a time; the others use the figures it stores.
        try (PreparedStatement ps = c.prepareStatement(JobSql.TRY_BOUNDED_LOCK)) {
            ps.setString(1, Long.toString(COUNT_TIMEOUT.toMillis()));
            ps.setString(2, Long.toString(COUNT_TIMEOUT.toMillis()));
            ps.setLong(3, lockKey);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(3);
            }
        }
    }

    private static DueFigures query(Connection c, String statement) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return figures(rs);
        }
    }

    private static DueFigures figures(ResultSet rs) throws SQLException {
        return new DueFigures(rs.getLong(1), rs.getDouble(2), rs.getLong(3));
    }
}
