package io.drover.executor.engine;

import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.LockMaintenance;
import org.jboss.logging.Logger;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Recovers the jobs of dead nodes: every {@code min(lockExpiry/2, 30 s)} it unlocks jobs whose
 * lock expired (their node stopped renewing), counting a crash for those that were running and
 * moving repeat node-killers to dead letters ({@link LockMaintenance}).
 *
 * <p>It never sweeps a job this node still holds, and it holds back until the database has
 * answered it for a quiet period since its last failure, and after the node starts
 * ({@code ExecutorSettings.sweepQuietPeriod}: long enough for a renewal that hung on a half-open
 * connection to fail and the next one to succeed): when the database comes back
 * from an outage, every live node's locks have expired at once, and sweeping before the other
 * nodes had a chance to renew theirs would take their running jobs from them and run those jobs
 * twice. A node that starts just then (it waited for the database) saw no failure of its own,
 * so it waits the same quiet period before its first sweep (the fault campaign caught it taking
 * hundreds of running jobs from two live nodes).
 */
final class ExpiredLockSweeper {
    private static final Logger LOG = Logger.getLogger(ExpiredLockSweeper.class);

    private final DataSource dataSource;
    private final LockMaintenance maintenance;
    private final HeldJobs held;
    private final DatabaseHealth database;
    private final Heartbeats.Beat beat;
    private final ExecutorMetrics metrics;
    private final Duration every;
    private final long quietNanos;
    private final ScheduledExecutorService scheduler;
    private final ProblemLog problems = new ProblemLog(LOG, "Sweeping expired job locks");
    private boolean holdingBack;

    /** @param quiet how long the database must have answered, after a failure or a start, before a sweep */
    ExpiredLockSweeper(DataSource dataSource, LockMaintenance maintenance, HeldJobs held, DatabaseHealth database,
                       Heartbeats heartbeats, ExecutorMetrics metrics, Duration every, Duration quiet,
                       String nodeName) {
        this.dataSource = dataSource;
        this.maintenance = maintenance;
        this.held = held;
        this.database = database;
        this.beat = heartbeats.register("expired lock sweep");
        this.metrics = metrics;
        this.every = every;
        this.quietNanos = quiet.toNanos();
        this.scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("drover-sweeper-" + nodeName).factory());
    }

    void start() {
        scheduler.scheduleWithFixedDelay(beat.guarded(this::sweep, LOG), quietNanos / 1_000_000, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    void sweep() {
        beat.beat();
        if (!database.calmFor(quietNanos)) {
            if (!holdingBack) {
                holdingBack = true;
                LOG.infof("Not sweeping expired locks until the database has answered for %d s: other nodes"
                        + " renew theirs first", quietNanos / 1_000_000_000L);
            }
            return;
        }
        holdingBack = false;
        try (Connection c = dataSource.getConnection()) {
            LockMaintenance.Recovered r = maintenance.sweepExpired(c, held.snapshot());
            problems.succeeded();
            database.succeeded();
            if (r.total() > 0) {
                metrics.locksRecovered(r.unlocked(), r.crashed(), r.poisoned());
                LOG.infof("Recovered %d jobs whose node stopped renewing its locks: %d were running (a crash"
                        + " each), %d moved to dead letters as poison (maxCrashes reached)", r.total(),
                        r.crashed() + r.poisoned(), r.poisoned());
            }
        } catch (Exception e) {
            database.failed(e);
            problems.failed(e);
        }
    }

    /** Stops sweeping; waits at most {@code max} for a sweep in progress. */
    void stop(java.time.Duration max) throws InterruptedException {
        scheduler.shutdownNow();
        scheduler.awaitTermination(max.toNanos(), TimeUnit.NANOSECONDS);
    }
}
