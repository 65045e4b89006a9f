package io.drover.executor.store;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Writes new jobs. Batches go in one transaction: all of them or none. */
public final class JobEnqueuer {
    private final DataSource dataSource;
    private final String insertSql;

    public JobEnqueuer(DataSource dataSource, Tables tables) {
        this.dataSource = dataSource;
        this.insertSql = new JobSql(tables).insertJob();
    }

    /**
     * A job to insert.
     *
     * @param dueAt null for "now"
     * @param repeatEvery null for a one-shot job; otherwise the period of a recurring timer
     */
    public record NewJob(String type, String payload, Instant dueAt, int maxAttempts, Duration repeatEvery) {
        public static NewJob now(String type, String payload, int maxAttempts) {
            return new NewJob(type, payload, null, maxAttempts, null);
        }
    }

    /** Inserts the jobs in order and returns their ids. */
    public long[] enqueue(List<NewJob> jobs) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return Transactions.run(c, () -> insert(c, jobs));
        }
    }

    private long[] insert(Connection c, List<NewJob> jobs) throws SQLException {
        long[] ids = new long[jobs.size()];
        try (PreparedStatement ps = c.prepareStatement(insertSql, new String[] {"id"})) {
            for (NewJob job : jobs) {
                ps.setString(1, job.type());
                ps.setString(2, job.payload());
                ps.setTimestamp(3, job.dueAt() == null ? null : Timestamp.from(job.dueAt()));
                ps.setInt(4, job.maxAttempts());
                if (job.repeatEvery() == null) {
                    ps.setNull(5, java.sql.Types.BIGINT);
                } else {
                    ps.setLong(5, job.repeatEvery().toMillis());
                }
                ps.addBatch();
            }
            ps.executeBatch();
            try (var keys = ps.getGeneratedKeys()) {
                int i = 0;
                while (keys.next()) {
                    ids[i++] = keys.getLong(1);
                }
            }
        }
        return ids;
    }
}
