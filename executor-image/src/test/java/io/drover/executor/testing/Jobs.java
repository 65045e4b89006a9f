package io.drover.executor.testing;

import io.drover.executor.store.JobEnqueuer;
import io.drover.executor.store.JobEnqueuer.NewJob;
import io.drover.executor.store.Tables;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/** Test helpers: enqueue, count, and wait for conditions on one schema. */
public record Jobs(DataSource dataSource, String schema) {

    public void enqueue(int count, String type, String payload, int maxAttempts) throws SQLException {
        JobEnqueuer enqueuer = new JobEnqueuer(dataSource, new Tables(schema));
        for (int done = 0; done < count; done += 1000) {
            List<NewJob> batch = new ArrayList<>();
            for (int i = done; i < Math.min(count, done + 1000); i++) {
                batch.add(NewJob.now(type, payload, maxAttempts));
            }
            enqueuer.enqueue(batch);
        }
    }

    public long count(String sqlAfterSchema) {
        return first(sqlAfterSchema, rs -> rs.getLong(1));
    }

    /** The first column of the first row of a query ({s} is the schema), as text. */
    public String text(String sqlAfterSchema) {
        return first(sqlAfterSchema, rs -> rs.getString(1));
    }

    private interface Column<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private <T> T first(String sqlAfterSchema, Column<T> column) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sqlAfterSchema.replace("{s}", schema))) {
            if (!rs.next()) {
                throw new IllegalStateException("no row: " + sqlAfterSchema);
            }
            return column.read(rs);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs a statement ({s} is the schema) and returns the rows it changed. */
    public int execute(String sqlWithSchema) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            return s.executeUpdate(sqlWithSchema.replace("{s}", schema));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public long jobsLeft() {
        return count("select count(*) from {s}.job");
    }

    public long executions() {
        return count("select count(*) from {s}.test_execution");
    }

    /** Jobs whose run (one at least) reached its end: the record handler's finished_at. */
    public long distinctFinished() {
        return count("select count(distinct job_id) from {s}.test_execution where finished_at is not null");
    }

    public long distinctExecuted() {
        return count("select count(distinct job_id) from {s}.test_execution");
    }

    public long deadLetters() {
        return count("select count(*) from {s}.dead_letter");
    }

    public static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            Thread.sleep(100);
        }
    }
}
