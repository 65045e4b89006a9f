package io.drover.flowable.engine;

import org.jboss.logging.Logger;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Extends the locks of the jobs this node holds, every lockExpiry / 4, as the Drover executor
 * does. Flowable never renews a lock: a job queued and run for longer than its lock time is
 * reset by another node's expired-job sweep and runs a second time beside the first, with no
 * fault at all. Renewed, a lock expires only when its node stops renewing: it died, froze or lost
 * the database.
 *
 * <p>One statement per round over the node's held rows (they are few: queue plus threads). It
 * writes only {@code lock_exp_time_}, never Flowable's revision {@code rev_}, so Flowable's own
 * version checks see no change; the value is this JVM's clock plus lockExpiry, as Flowable writes
 * and compares it (a timestamp without time zone in the JVM's zone). Bounded by a statement
 * timeout, so a row lock held by a finishing job's transaction cannot stall it.
 */
final class LockRenewal implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(LockRenewal.class);

    private final DataSource dataSource;
    private final String sql;
    private final String owner;
    private final Duration lockExpiry;
    private final ScheduledExecutorService timer;

    LockRenewal(DataSource dataSource, String schema, String owner, Duration lockExpiry) {
        this.dataSource = dataSource;
        this.sql = "update " + schema + ".act_ru_job set lock_exp_time_ = ? where lock_owner_ = ? and lock_exp_time_ is not null";
        this.owner = owner;
        this.lockExpiry = lockExpiry;
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("flowable-lock-renewal").daemon().factory());
        long every = lockExpiry.dividedBy(4).toMillis();
        timer.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.MILLISECONDS);
    }

    /** @return locks renewed, or -1 when the round failed (the next one tries again) */
    int renew() {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try (PreparedStatement timeout = c.prepareStatement("select set_config('statement_timeout', ?, true)");
                 PreparedStatement ps = c.prepareStatement(sql)) {
                timeout.setString(1, Long.toString(lockExpiry.dividedBy(4).toMillis()));
                timeout.execute();
                ps.setTimestamp(1, new Timestamp(System.currentTimeMillis() + lockExpiry.toMillis()));
                ps.setString(2, owner);
                int renewed = ps.executeUpdate();
                c.commit();
                return renewed;
            } catch (Exception e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (Exception e) {
            LOG.warnf("Renewing the locks of %s failed (next round in %s): %s", owner, lockExpiry.dividedBy(4), e.toString());
            return -1;
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
