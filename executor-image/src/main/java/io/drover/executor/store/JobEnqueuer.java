package io.drover.executor.store;

import org.postgresql.PGConnection;

import javax.sql.DataSource;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Writes new jobs. Batches go in one transaction: all of them or none. A call may carry an
 * idempotency key: the first call with it enqueues its jobs and records the key with their ids,
 * in the same transaction; a later call with the same key and the same request (a producer
 * retrying a call whose answer it lost) enqueues nothing and gets those ids again; with another
 * request it is refused ({@link KeyReused}).
 */
public final class JobEnqueuer {
    private final DataSource dataSource;
    private final String insertSql;
    private final String claimKey;
    private final String claimWait;
    private final String claimWaitEnds;
    private final String setKeyIds;
    private final String keyOf;
    private final String pruneKeys;

    public JobEnqueuer(DataSource dataSource, Tables tables) {
        this.dataSource = dataSource;
        JobSql sql = new JobSql(tables);
        this.insertSql = sql.insertJob();
        this.claimKey = sql.claimEnqueueKey();
        this.claimWait = sql.claimWaitsAtMost();
        this.claimWaitEnds = sql.claimWaitEnds();
        this.setKeyIds = sql.setEnqueueKeyIds();
        this.keyOf = sql.enqueueKeyOf();
        this.pruneKeys = sql.pruneEnqueueKeys();
    }

    /** The jobs of a call, and whether they were enqueued by an earlier call with the same key. */
    public record Enqueued(long[] ids, boolean replayed) {
    }

    /** The key was first used for a different request; nothing was written. */
    public static final class KeyReused extends Exception {
        public KeyReused() {
            super("the idempotency key was first used for a different request");
        }
    }

    /**
     * Another call with the key is still writing and did not end within
     * {@link JobSql#ENQUEUE_KEY_WAIT}; nothing was written. Its caller may try again: it will
     * get that call's ids once it commits, or enqueue the jobs if it rolled back.
     */
    public static final class KeyInUse extends Exception {
        public KeyInUse() {
            super("another call with the idempotency key is still in progress");
        }
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

    /**
     * Inserts the jobs in order, once per key: see the class comment.
     *
     * @param key     the caller's idempotency key
     * @param request a digest of the request as the caller sent it (the call and its fields, an
     *                omitted one as omitted): a later call with the key must send the same
     */
    public Enqueued enqueue(List<NewJob> jobs, String key, byte[] request) throws SQLException, KeyReused, KeyInUse {
        try (Connection c = dataSource.getConnection()) {
            Enqueued done = Transactions.run(c, () -> {
                try (PreparedStatement ps = c.prepareStatement(claimWait)) {
                    ps.execute();
                }
                boolean ours;
                try (PreparedStatement ps = c.prepareStatement(claimKey)) {
                    ps.setString(1, key);
                    ps.setBytes(2, request);
                    try (ResultSet rs = ps.executeQuery()) {
                        ours = rs.next();
                    }
                } catch (SQLException e) {
                    if (SqlErrors.LOCK_NOT_AVAILABLE.equals(e.getSQLState())) { // the claim's wait ran past its lock_timeout
                        throw new KeyInUseFailure(e);
                    }
                    throw e;
                }
                try (PreparedStatement ps = c.prepareStatement(claimWaitEnds)) {
                    ps.execute();
                }
                // After the claim, which is the only statement here that may wait for another
                // call: the prune skips the keys others hold, so no two calls wait for each other.
                try (PreparedStatement prune = c.prepareStatement(pruneKeys)) {
                    prune.executeUpdate();
                }
                if (!ours) {
                    return earlier(c, key, request);
                }
                long[] ids = insert(c, jobs);
                try (PreparedStatement ps = c.prepareStatement(setKeyIds)) {
                    ps.setArray(1, c.unwrap(PGConnection.class).createArrayOf("bigint", ids));
                    ps.setString(2, key);
                    ps.executeUpdate();
                }
                return new Enqueued(ids, false);
            });
            if (done == null) {
                throw new KeyReused();
            }
            return done;
        } catch (KeyInUseFailure e) {
            throw new KeyInUse();
        }
    }

    /** The claim's own wait ran out (only it: the rest of the transaction waits as the session does). */
    private static final class KeyInUseFailure extends SQLException {
        KeyInUseFailure(SQLException cause) {
            super(cause.getMessage(), cause.getSQLState(), cause);
        }
    }

    /** The earlier call's ids, or null if it was another request. */
    private Enqueued earlier(Connection c, String key, byte[] request) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(keyOf)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) { // cannot happen: the claim found it live in this transaction
                    throw new SQLException("idempotency key vanished", "40001");
                }
                if (!MessageDigest.isEqual(request, rs.getBytes(1))) {
                    return null;
                }
                Long[] ids = (Long[]) rs.getArray(2).getArray();
                long[] plain = new long[ids.length];
                for (int i = 0; i < ids.length; i++) {
                    plain[i] = ids[i];
                }
                return new Enqueued(plain, true);
            }
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
