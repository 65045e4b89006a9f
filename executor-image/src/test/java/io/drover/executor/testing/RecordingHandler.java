package io.drover.executor.testing;

import io.drover.executor.handler.InvalidPayloadException;
import io.drover.executor.handler.JobContext;
import io.drover.executor.handler.JobHandler;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;

/**
 * Job type {@code record}: the side effect tests count. Each execution inserts a row into
 * test_execution (no unique key, so a duplicate execution shows up as a second row), then
 * sleeps for the payload's milliseconds if the payload is a number, then stamps the row's
 * finished_at: a run cut short (a kill, an interrupt) is a row without it. Payload "fail" fails.
 */
public final class RecordingHandler implements JobHandler {
    public static final String TYPE = "record";
    private final DataSource dataSource;
    private final String schema;
    private final String node;

    public RecordingHandler(DataSource dataSource, String schema, String node) {
        this.dataSource = dataSource;
        this.schema = schema;
        this.node = node;
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public void execute(JobContext job) throws Exception {
        long sleep = 0;
        if (job.payload() != null && !job.payload().isEmpty()) {
            if ("fail".equals(job.payload())) {
                throw new IllegalStateException("failing as asked");
            }
            try {
                sleep = Long.parseLong(job.payload());
            } catch (NumberFormatException e) {
                throw new InvalidPayloadException("payload must be a number of milliseconds, got '" + job.payload() + "'");
            }
        }
        long run;
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "insert into " + schema + ".test_execution (job_id, node, due_at) values (?, ?, ?) returning run_id")) {
            ps.setLong(1, job.id());
            ps.setString(2, node);
            ps.setTimestamp(3, Timestamp.from(job.dueAt()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                run = rs.getLong(1);
            }
        }
        if (sleep > 0) {
            Thread.sleep(sleep);
        }
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "update " + schema + ".test_execution set finished_at = clock_timestamp() where run_id = ?")) {
            ps.setLong(1, run);
            ps.executeUpdate();
        }
    }
}
