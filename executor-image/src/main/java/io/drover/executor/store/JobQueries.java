package io.drover.executor.store;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads and administrative writes for the API: job lookup, counts, dead letters. */
public final class JobQueries {
    /** Counts stop here: counting a backlog of millions would cost seconds on every call. */
    public static final long COUNT_CAP = 1_000_000;

    private final DataSource dataSource;
    private final JobSql sql;

    public JobQueries(DataSource dataSource, Tables tables) {
        this.dataSource = dataSource;
        this.sql = new JobSql(tables);
    }

    /**
     * A job as the API shows it. status: scheduled (due later), due, running (locked by a node),
     * dead_letter. payloadOmitted: the payload is larger than an enqueue takes (written with SQL)
     * and not shown; read it with SQL.
     */
    public record JobView(long id, String type, String payload, String status, Instant dueAt, int attempts,
                          int maxAttempts, String repeatEvery, String lockedBy, String lastError, Instant createdAt,
                          boolean payloadOmitted) {
    }

    /**
     * Both reads in one snapshot (REPEATABLE READ): a dead letter retried (or a job dead-lettered)
     * between two auto-commit reads was in neither table for them, and the API answered 404 for a
     * job that exists.
     */
    public Optional<JobView> find(long id) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return Transactions.run(c, () -> {
                try (var st = c.createStatement()) {
                    st.execute(JobSql.ONE_SNAPSHOT); // this transaction only: nothing to restore on the pooled connection
                }
                return findIn(c, id);
            });
        }
    }

    private Optional<JobView> findIn(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.findJob())) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return Optional.of(new JobView(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            instant(rs, 5), rs.getInt(6), rs.getInt(7), period(rs, 8), rs.getString(9),
                            rs.getString(10), instant(rs, 11), rs.getBoolean(12)));
                }
            }
        }
        return findDead(c, id).map(d -> new JobView(d.id(), d.type(), d.payload(), "dead_letter", d.dueAt(),
                d.attempts(), d.maxAttempts(), d.repeatEvery(), null, d.error(), d.createdAt(), d.payloadOmitted()));
    }

    /** Counts for the API and the backlog gauge, each capped at {@link #COUNT_CAP}. */
    public record Counts(long dueBacklog, long futureTimers, long running, long deadLetters, long cap) {
    }

    public Counts counts() throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql.counts());
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return new Counts(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), COUNT_CAP);
        }
    }

    /** payloadOmitted as {@link JobView}'s. */
    public record DeadLetterView(long id, String type, String payload, int attempts, int maxAttempts,
                                 String repeatEvery, String error, Instant dueAt, Instant createdAt, Instant failedAt,
                                 boolean payloadOmitted) {
    }

    /** A page of dead letters ends once its payloads and errors reach this many bytes: see {@link JobSql#deadLetterPage}. */
    public static final int PAGE_BYTES = 4 * 1_048_576;

    /**
     * Dead letters by id, paged with {@code afterId} (keyset: stable while rows come and go), up
     * to {@code limit} rows or {@link #PAGE_BYTES}: a page shorter than the limit is not the last.
     */
    public List<DeadLetterView> deadLetters(long afterId, int limit) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql.deadLetterPage())) {
            ps.setLong(1, afterId);
            ps.setInt(2, limit);
            ps.setLong(3, PAGE_BYTES);
            List<DeadLetterView> list = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    list.add(deadLetter(rs));
                }
            }
            return list;
        }
    }

    private Optional<DeadLetterView> findDead(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.findDeadLetter())) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(deadLetter(rs)) : Optional.empty();
            }
        }
    }

    /**
     * Moves a dead letter back into the job table under its own id, due now, with fresh
     * attempts. One statement: the job is never in both tables, nor in neither.
     *
     * @return false if there is no such dead letter
     */
    public boolean retryDeadLetter(long id) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql.retryDeadLetter())) {
            ps.setLong(1, id);
            return ps.executeUpdate() == 1;
        }
    }

    public boolean deleteDeadLetter(long id) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(sql.deleteDeadLetter())) {
            ps.setLong(1, id);
            return ps.executeUpdate() == 1;
        }
    }

    private static DeadLetterView deadLetter(ResultSet rs) throws SQLException {
        return new DeadLetterView(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getInt(5),
                period(rs, 6), rs.getString(7), instant(rs, 8), instant(rs, 9), instant(rs, 10), rs.getBoolean(11));
    }

    /** A timer's period (milliseconds) as ISO-8601, the form the API takes: PT1M, PT1.5S; null for a one-shot job. */
    private static String period(ResultSet rs, int column) throws SQLException {
        long millis = rs.getLong(column);
        return rs.wasNull() ? null : java.time.Duration.ofMillis(millis).toString();
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        Timestamp ts = rs.getTimestamp(column);
        return ts == null ? null : ts.toInstant();
    }
}
