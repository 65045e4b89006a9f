package io.drover.executor.store;

import io.drover.executor.store.JobQueries.DueFigures;

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
 * the backlog (up to 1,000,000 index entries) is counted about once per interval for the fleet,
 * not once per node. A node that finds the row older than the interval counts, if it gets the
 * advisory lock; one that does not (another node counts right now) uses the row as it is.
 */
public final class FleetFigures {
    private final DataSource dataSource;
    private final JobSql sql;
    private final long lockKey;

    public FleetFigures(DataSource dataSource, Tables tables) {
        this.dataSource = dataSource;
        this.sql = new JobSql(tables);
        this.lockKey = AdvisoryKeys.of("drover.fleet-figures:" + tables.schema());
    }

    /** Figures counted less than {@code maxAge} ago, by this node or another. */
    public DueFigures read(Duration maxAge) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                Optional<Stored> stored = stored(c, maxAge);
                DueFigures figures;
                if (stored.isPresent() && (stored.get().fresh() || !tryLock(c))) {
                    figures = stored.get().figures();
                } else {
                    figures = countAndStore(c);
                }
                c.commit();
                return figures;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    private record Stored(DueFigures figures, boolean fresh) {
    }

    private Optional<Stored> stored(Connection c, Duration maxAge) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.readFleetFigures())) {
            ps.setLong(1, maxAge.toMillis());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(new Stored(figures(rs), rs.getBoolean(4))) : Optional.empty();
            }
        }
    }

    private boolean tryLock(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(JobSql.TRY_FLEET_FIGURES_LOCK)) {
            ps.setLong(1, lockKey);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private DueFigures countAndStore(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.countAndStoreFleetFigures()); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return figures(rs);
        }
    }

    private static DueFigures figures(ResultSet rs) throws SQLException {
        return new DueFigures(rs.getLong(1), rs.getDouble(2), rs.getLong(3));
    }
}
