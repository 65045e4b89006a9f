package io.drover.e2e;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The executors' job table, as the application that enqueues work sees it. */
final class JobTable {
    private final E2EEnvironment env;
    private final String schema;

    JobTable(E2EEnvironment env, String schema) {
        this.env = env;
        this.schema = schema;
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(env.jdbcUrl(), env.dbUser(), env.dbPassword());
    }

    boolean exists() throws SQLException {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement("select to_regclass(?) is not null")) {
            ps.setString(1, schema + ".job");
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** Enqueues http jobs whose body is their own id; returns the ids. */
    List<Long> enqueueHttp(int count, int delayMillis) throws SQLException {
        List<Long> ids = new ArrayList<>(count);
        // One transaction: executors must never see a job before its payload (its id) is set.
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(
                "insert into " + schema + ".job (type, payload, max_attempts, due_at) "
                        + "select 'http', null, 20, now() + make_interval(secs => ? / 1000.0) from generate_series(1, ?) "
                        + "returning id")) {
            c.setAutoCommit(false);
            ps.setInt(1, delayMillis);
            ps.setInt(2, count);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            // The body each job posts is its id.
            try (PreparedStatement up = c.prepareStatement("update " + schema + ".job set payload = id::text where payload is null")) {
                up.executeUpdate();
            }
            c.commit();
        }
        return ids;
    }

    /** Enqueues jobs of a type with a payload, as an application's plain SQL would; returns their ids. */
    List<Long> enqueue(String type, String payload, int count, int maxAttempts) throws SQLException {
        List<Long> ids = new ArrayList<>(count);
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(
                "insert into " + schema + ".job (type, payload, max_attempts) select ?, ?, ? from generate_series(1, ?)"
                        + " returning id")) {
            ps.setString(1, type);
            ps.setString(2, payload);
            ps.setInt(3, maxAttempts);
            ps.setInt(4, count);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        return ids;
    }

    /**
     * A database that makes its clients wait: a session takes the job table in SHARE ROW EXCLUSIVE
     * mode for {@code hold} at a time, again and again, until closed, as a long DDL or a VACUUM
     * FULL would. Every statement that writes the table (acquiring, completing, renewing) waits
     * behind it; plain reads (the backlog count) do not. Each release lets the statements already
     * waiting through, then the next hold queues behind them.
     */
    AutoCloseable holdTableLockRepeatedly(java.time.Duration hold) throws SQLException {
        Connection c = connect();
        c.setAutoCommit(false);
        var running = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread t = Thread.ofPlatform().name("table-lock-" + schema).daemon().start(() -> {
            try (c; var st = c.createStatement()) {
                while (running.get()) {
                    st.execute("lock table " + schema + ".job in share row exclusive mode");
                    Thread.sleep(hold);
                    c.commit();
                }
            } catch (SQLException | InterruptedException e) {
                if (running.get()) {
                    throw new IllegalStateException("the table lock holder failed", e);
                }
            }
        });
        return () -> {
            running.set(false);
            t.join(hold.toMillis() * 2 + 5000);
        };
    }

    /** Dead letters' errors by job id. */
    java.util.Map<Long, String> deadLetterErrors() throws SQLException {
        java.util.Map<Long, String> errors = new java.util.HashMap<>();
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement("select id, error from " + schema + ".dead_letter");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                errors.put(rs.getLong(1), rs.getString(2));
            }
        }
        return errors;
    }

    /**
     * Takes the right to change the job table from its own role (the owner may revoke its own
     * privileges): the executors' writes are then refused with 42501, as for a role that was
     * never granted them.
     */
    void revokeWrites() throws SQLException {
        try (Connection c = connect(); java.sql.Statement s = c.createStatement()) {
            s.execute("revoke update, delete on " + schema + ".job from current_user");
        }
    }

    /** Timers far in the future: the database state that deleting a cluster must leave alone. */
    void enqueueFutureTimers(int count) throws SQLException {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(
                "insert into " + schema + ".job (type, payload, due_at) select 'noop', null, now() + interval '30 days' from generate_series(1, ?)")) {
            ps.setInt(1, count);
            ps.executeUpdate();
        }
    }

    long count(String where) throws SQLException {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement("select count(*) from " + schema + ".job where " + where);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    long deadLetters() throws SQLException {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement("select count(*) from " + schema + ".dead_letter");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Whether the database answers a query now, on a new connection. */
    boolean answers() {
        try (Connection c = connect(); java.sql.Statement s = c.createStatement()) {
            s.setQueryTimeout(5);
            s.execute("select 1");
            return true;
        } catch (SQLException e) {
            return false;
        }
    }
}
