package io.drover.flowable.engine;

import org.jboss.logging.Logger;

import javax.sql.DataSource;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Extends the locks of the jobs this node holds ({@link HeldJobs}: queued or running), every
 * lockExpiry / 4, as the Drover executor does. Flowable never renews a lock: a job queued and run
 * for longer than its lock time is reset by another node's expired-job sweep and runs a second
 * time beside the first, with no fault at all. Renewed, a lock expires only when its node stops
 * renewing it: the node died, froze or lost the database, or no longer holds the job (a row left
 * locked by a run whose outcome could not be written lapses and is swept, not kept).
 *
 * <p>The process instance lock of a held exclusive job is extended with it: it lapsed after
 * lockExpiry while the job still ran, and another node could lock the instance and run a sibling
 * exclusive job beside it (one of the two then fails at commit and runs again).
 *
 * <p>Two statements per round over the node's held rows (they are few: queue plus threads), none
 * when it holds nothing. They write only the lock columns, never Flowable's revision
 * {@code rev_}, so Flowable's own version checks see no change; the value is this JVM's clock
 * plus lockExpiry, as Flowable writes and compares it (a timestamp without time zone in the JVM's
 * zone). Bounded by a statement timeout, so a row lock held by a finishing job's transaction
 * cannot stall it.
 */
final class LockRenewal implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(LockRenewal.class);

    private final DataSource dataSource;
    private final String jobs;
    private final String instances;
    private final HeldJobs held;
    private final String owner;
    private final Duration lockExpiry;
    private final ScheduledExecutorService timer;
    private final DatabaseAnswers answers;

    LockRenewal(DataSource dataSource, String schema, String owner, Duration lockExpiry, HeldJobs held, DatabaseAnswers answers) {
        this.dataSource = dataSource;
        this.answers = answers;
        this.held = held;
        this.jobs = "update " + schema + ".act_ru_job set lock_exp_time_ = ?"
                + " where id_ = any(?) and lock_owner_ = ? and lock_exp_time_ is not null";
        this.instances = "update " + schema + ".act_ru_execution set lock_time_ = ? where lock_owner_ = ? and lock_time_ is not null"
                + " and id_ in (select process_instance_id_ from " + schema + ".act_ru_job where id_ = any(?) and exclusive_)";
        this.owner = owner;
        this.lockExpiry = lockExpiry;
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("flowable-lock-renewal").daemon().factory());
        long every = lockExpiry.dividedBy(4).toMillis();
        timer.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.MILLISECONDS);
    }

    /** @return job locks renewed, or -1 when the round failed (the next one tries again) */
    int renew() {
        String[] ids = held.ids();
        if (ids.length == 0) {
            return 0;
        }
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try (PreparedStatement timeout = c.prepareStatement("select set_config('statement_timeout', ?, true)");
                 PreparedStatement renewJobs = c.prepareStatement(jobs);
                 PreparedStatement renewInstances = c.prepareStatement(instances)) {
                timeout.setString(1, Long.toString(lockExpiry.dividedBy(4).toMillis()));
                timeout.execute();
                Timestamp until = new Timestamp(System.currentTimeMillis() + lockExpiry.toMillis());
                Array idArray = c.createArrayOf("varchar", ids);
                renewJobs.setTimestamp(1, until);
                renewJobs.setArray(2, idArray);
                renewJobs.setString(3, owner);
                int renewed = renewJobs.executeUpdate();
                renewInstances.setTimestamp(1, until);
                renewInstances.setString(2, owner);
                renewInstances.setArray(3, idArray);
                renewInstances.executeUpdate();
                c.commit();
                answers.answered();
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
