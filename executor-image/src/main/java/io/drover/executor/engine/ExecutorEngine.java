package io.drover.executor.engine;

import io.drover.executor.acquire.AcquisitionStrategy;
import io.drover.executor.acquire.GlobalAcquireLock;
import io.drover.executor.acquire.GlobalLockAcquisition;
import io.drover.executor.acquire.OptimisticAcquisition;
import io.drover.executor.acquire.SkipLockedAcquisition;
import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.config.NodeNames;
import io.drover.executor.handler.HandlerRegistry;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.CompletionWriter;
import io.drover.executor.store.LockMaintenance;
import io.drover.executor.store.Tables;
import org.jboss.logging.Logger;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;

/**
 * One executor node: acquisition loop -> bounded queue -> workers -> batched completion, with
 * a lock keeper beside them. Framework-free so that the Quarkus service, the benchmark tool
 * and the tests all run the same engine; see docs/engine.md for the design.
 */
public final class ExecutorEngine implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ExecutorEngine.class);

    private final ExecutorSettings settings;
    private final DataSource dataSource;
    private final String owner;
    private final ExecutorMetrics metrics;
    private final HeldJobs held = new HeldJobs();
    private final LockMaintenance maintenance;
    private final CompletionLoop completions;
    private final WorkerPool pool;
    private final AcquisitionLoop acquirer;
    private final LockKeeper lockKeeper;
    private final JobNotificationListener listener;
    private volatile State state = State.NEW;

    public enum State { NEW, RUNNING, STOPPING, STOPPED }

    public ExecutorEngine(ExecutorSettings settings, DataSource dataSource, HandlerRegistry handlers,
                          ExecutorMetrics metrics) {
        this.settings = settings;
        this.dataSource = dataSource;
        this.metrics = metrics;
        this.owner = NodeNames.lockOwner(settings.nodeName());
        Tables tables = new Tables(settings.schema());
        String node = settings.nodeName();
        this.maintenance = new LockMaintenance(tables, owner, node, settings.lockExpiry());
        this.completions = new CompletionLoop(dataSource, new CompletionWriter(tables, owner), held, metrics,
                settings.completionBatchSize(), node);
        JobRunner runner = new JobRunner(handlers,
                new RetryPolicy(settings.retryBackoff(), settings.retryBackoffMax()), metrics);
        this.pool = new WorkerPool(settings.threads(), settings.queueSize(), settings.virtualThreads(), node,
                runner, completions::submit);
        this.acquirer = new AcquisitionLoop(dataSource, strategy(settings, tables, owner, metrics), pool, held,
                metrics, settings.acquirePageSize(), settings.acquireInterval(), tables, node);
        this.lockKeeper = new LockKeeper(dataSource, maintenance, held, metrics, settings.lockRenewInterval(),
                settings.expiredLockSweepInterval(), node);
        this.listener = new JobNotificationListener(dataSource, tables.channel(), acquirer::wakeUp, node);
        metrics.gauge("drover.queue.depth", "Jobs acquired and waiting for a worker", pool::queued);
        metrics.gauge("drover.queue.capacity", "The queueSize setting", pool::capacity);
        metrics.gauge("drover.threads.busy", "Workers running a job", pool::busy);
        metrics.gauge("drover.threads", "The threads setting", settings::threads);
        metrics.gauge("drover.jobs.held", "Jobs locked by this node (queued, running or completing)", held::size);
        metrics.gauge("drover.completion.pending", "Job outcomes waiting to be written", completions::pending);
    }

    private static AcquisitionStrategy strategy(ExecutorSettings s, Tables tables, String owner, ExecutorMetrics metrics) {
        return switch (s.lockMode()) {
            case SkipLocked -> new SkipLockedAcquisition(tables, owner, s.lockExpiry());
            case Optimistic -> new OptimisticAcquisition(tables, owner, s.lockExpiry(), metrics);
            case Global -> new GlobalLockAcquisition(tables, owner, s.lockExpiry(),
                    new GlobalAcquireLock(s.schema(), s.globalLockMaxHold()),
                    s.globalLockWaitTime(), s.globalLockPollInterval(), metrics);
        };
    }

    public synchronized void start() {
        if (state != State.NEW) {
            throw new IllegalStateException("engine already " + state);
        }
        releasePredecessorLocks();
        completions.start();
        pool.start();
        lockKeeper.start();
        acquirer.start();
        listener.start();
        state = State.RUNNING;
        LOG.infof("Drover node %s started: lockMode=%s threads=%d%s queueSize=%d acquirePageSize=%d lockExpiry=%s",
                owner, settings.lockMode(), settings.threads(), settings.virtualThreads() ? " (virtual)" : "",
                settings.queueSize(), settings.acquirePageSize(), settings.lockExpiry());
    }

    private void releasePredecessorLocks() {
        try (Connection c = dataSource.getConnection()) {
            int released = maintenance.releasePredecessors(c);
            if (released > 0) {
                LOG.infof("Released %d jobs still locked by an earlier run of node %s", released, settings.nodeName());
            }
        } catch (Exception e) {
            LOG.warnf("Could not release locks of earlier runs of node %s (they will expire instead): %s",
                    settings.nodeName(), e.getMessage());
        }
    }

    /**
     * Graceful stop: stop acquiring; hand queued, unstarted jobs back to the fleet at once; let
     * running jobs finish within {@code shutdownGracePeriod}; write every outcome; stop renewing
     * locks last.
     */
    @Override
    public synchronized void close() {
        if (state != State.RUNNING) {
            state = State.STOPPED;
            return;
        }
        state = State.STOPPING;
        long deadline = System.nanoTime() + settings.shutdownGracePeriod().toNanos();
        try {
            listener.stop();
            acquirer.stop();
            releaseUnstarted(pool.stopAndDrainQueued());
            if (!pool.awaitRunningJobs(deadline)) {
                LOG.warnf("Jobs still running after shutdownGracePeriod %s were interrupted",
                        settings.shutdownGracePeriod());
            }
            // Outcomes get a little time past the grace period: losing them means re-running jobs.
            completions.stop(Math.max(deadline, System.nanoTime()) + Duration.ofSeconds(10).toNanos());
            lockKeeper.stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            state = State.STOPPED;
            LOG.infof("Drover node %s stopped", owner);
        }
    }

    private void releaseUnstarted(List<AcquiredJob> unstarted) {
        if (unstarted.isEmpty()) {
            return;
        }
        List<Long> ids = unstarted.stream().map(AcquiredJob::id).toList();
        try (Connection c = dataSource.getConnection()) {
            int released = maintenance.release(c, ids);
            held.removeAll(ids);
            metrics.released(released);
            LOG.infof("Released %d queued jobs that had not started, for other nodes to take", released);
        } catch (Exception e) {
            LOG.warnf("Could not release %d queued jobs (they run after lock expiry instead): %s",
                    ids.size(), e.getMessage());
        }
    }

    /** Wakes an idle acquirer, e.g. right after jobs were enqueued through this node. */
    public void wakeUp() {
        acquirer.wakeUp();
    }

    public State state() {
        return state;
    }

    /** True while running and acquisition has not been failing for longer than {@code window}. */
    public boolean acquiring(Duration window) {
        return state == State.RUNNING && acquirer.healthy(window);
    }

    public String owner() {
        return owner;
    }

    public ExecutorSettings settings() {
        return settings;
    }

    public ExecutorMetrics metrics() {
        return metrics;
    }

    public int queued() {
        return pool.queued();
    }

    public int busyThreads() {
        return pool.busy();
    }

    public int heldJobs() {
        return held.size();
    }
}
