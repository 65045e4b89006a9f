package io.drover.executor.engine;

import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.LockMaintenance;
import org.jboss.logging.Logger;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Renews this node's locks every {@code lockExpiry/4} and sweeps the expired locks of dead
 * nodes. Renewal is what lets {@code lockExpiry} be short (fast recovery after a crash)
 * without expiring the locks of long-running jobs (duplicate execution). It is the last
 * thing to stop at shutdown, so jobs finishing in the grace period keep their locks.
 */
final class LockKeeper {
    private static final Logger LOG = Logger.getLogger(LockKeeper.class);

    private final DataSource dataSource;
    private final LockMaintenance maintenance;
    private final HeldJobs held;
    private final ExecutorMetrics metrics;
    private final Duration renewEvery;
    private final Duration sweepEvery;
    private final ScheduledExecutorService scheduler;
    private final ProblemLog renewProblems = new ProblemLog(LOG, "Renewing job locks");
    private final ProblemLog sweepProblems = new ProblemLog(LOG, "Sweeping expired job locks");

    LockKeeper(DataSource dataSource, LockMaintenance maintenance, HeldJobs held, ExecutorMetrics metrics,
               Duration renewEvery, Duration sweepEvery, String nodeName) {
        this.dataSource = dataSource;
        this.maintenance = maintenance;
        this.held = held;
        this.metrics = metrics;
        this.renewEvery = renewEvery;
        this.sweepEvery = sweepEvery;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("drover-locks-" + nodeName).factory());
    }

    void start() {
        scheduler.scheduleWithFixedDelay(this::renew, renewEvery.toMillis(), renewEvery.toMillis(), TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::sweep, 0, sweepEvery.toMillis(), TimeUnit.MILLISECONDS);
    }

    void renew() {
        List<Long> ids = held.snapshot();
        if (ids.isEmpty()) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            maintenance.renew(c, ids);
            renewProblems.succeeded();
        } catch (Exception e) {
            renewProblems.failed(e);
        }
    }

    void sweep() {
        try (Connection c = dataSource.getConnection()) {
            LockMaintenance.Sweep sweep = maintenance.sweepExpired(c);
            sweepProblems.succeeded();
            if (sweep.unlocked() + sweep.deadLettered() > 0) {
                metrics.locksRecovered(sweep.unlocked(), sweep.deadLettered());
                LOG.infof("Recovered %d jobs whose node stopped renewing its locks (%d of them moved to dead"
                        + " letters: attempts used up)", sweep.unlocked() + sweep.deadLettered(), sweep.deadLettered());
            }
        } catch (Exception e) {
            sweepProblems.failed(e);
        }
    }

    void stop() throws InterruptedException {
        scheduler.shutdownNow();
        scheduler.awaitTermination(5, TimeUnit.SECONDS);
    }
}
