package io.drover.executor.engine;

import io.drover.contract.DatabaseDiagnosis;
import io.drover.executor.acquire.AcquisitionStrategy;
import io.drover.executor.acquire.GlobalAcquireLock;
import io.drover.executor.acquire.GlobalLockAcquisition;
import io.drover.executor.acquire.OptimisticAcquisition;
import io.drover.executor.acquire.SkipLockedAcquisition;
import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.config.NodeNames;
import io.drover.executor.handler.HandlerRegistry;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.CompletionWriter;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.JobStarts;
import io.drover.executor.store.LockMaintenance;
import io.drover.executor.store.Tables;
import org.jboss.logging.Logger;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One executor node: acquisition loop -> bounded queue -> workers (each start confirmed by a
 * start mark) -> batched completion, with lock renewal, the expired-lock sweep and the node's
 * session beside them. Framework-free so that the Quarkus service, the benchmark tool and the
 * tests all run the same engine; see docs/engine.md for the design and docs/reliability.md for
 * what it does under faults.
 *
 * <p>The data source should be the engine's own (the service builds one with
 * {@code EnginePool}): every loop then gets its connection when it needs it, whatever the
 * handlers and the API do with theirs, and every call has a network timeout.
 */
public final class ExecutorEngine implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ExecutorEngine.class);

    private final ExecutorSettings settings;
    private final DataSource dataSource;
    private final String owner;
    private final ExecutorMetrics metrics;
    private final HeldJobs held;
    private final DatabaseHealth database = new DatabaseHealth();
    private final Heartbeats heartbeats = new Heartbeats();
    private final LockMaintenance maintenance;
    private final UnstartedRelease unstarted;
    private final CompletionLoop completions;
    private final JobStarter starter;
    private final WorkerPool pool;
    private final AcquisitionLoop acquirer;
    private final LockRenewer renewer;
    private final ExpiredLockSweeper sweeper;
    private final NodeSession session;
    private volatile State state = State.NEW;

    public enum State { NEW, RUNNING, STOPPING, STOPPED }

    public ExecutorEngine(ExecutorSettings settings, DataSource dataSource, HandlerRegistry handlers,
                          ExecutorMetrics metrics) {
        this(settings, dataSource, handlers, metrics, null);
    }

    /** With the factory of its workers' threads (a test's, that can fail as a JVM out of threads does). */
    ExecutorEngine(ExecutorSettings settings, DataSource dataSource, HandlerRegistry handlers,
                   ExecutorMetrics metrics, java.util.concurrent.ThreadFactory workerThreads) {
        this.settings = settings;
        this.dataSource = dataSource;
        this.metrics = metrics;
        this.owner = NodeNames.lockOwner(settings.nodeName());
        this.held = new HeldJobs(settings.lease().toNanos());
        JobSql sql = new JobSql(new Tables(settings.schema()));
        String node = settings.nodeName();
        this.maintenance = new LockMaintenance(sql, owner, node, settings.lockExpiry(), settings.maxCrashes());
        this.unstarted = new UnstartedRelease(dataSource, maintenance, held, metrics);
        this.completions = new CompletionLoop(dataSource, new CompletionWriter(sql, owner), held, database,
                heartbeats, metrics, settings.completionBatchSize(), node);
        this.starter = new JobStarter(dataSource, new JobStarts(sql, owner, settings.lockExpiry()), held, database,
                heartbeats, settings.lockRenewInterval().toMillis(), node);
        JobRunner runner = new JobRunner(handlers,
                new RetryPolicy(settings.retryBackoff(), settings.retryBackoffMax()), metrics, node,
                () -> state != State.RUNNING);
        // Jobs start only while their outcomes can be recorded: the last word from the database
        // was not a failure, no batch of outcomes has been stuck for a second (a hung write:
        // a half-open connection is only found out when its timeout fires), and no loop ended
        // on an error it did not expect (its outcomes or renewals might never come).
        long stalled = Duration.ofSeconds(1).toNanos();
        this.pool = new WorkerPool(settings.threads(), settings.queueSize(),
                workerThreads != null ? workerThreads : WorkerPool.workerThreads(settings.virtualThreads(), node), node,
                runner, starter, held, settings::jobTimeout, settings.maxCrashes(), completions::submit,
                () -> database.reachable() && completions.stalledNanos() < stalled && !heartbeats.anyEnded(),
                heartbeats, metrics);
        // Outcomes waiting to be written count against the node too: at most a queue's worth, or
        // one full write, before it stops acquiring (AcquisitionLoop).
        this.acquirer = new AcquisitionLoop(dataSource, strategy(settings, sql, owner, metrics), pool, held,
                database, heartbeats, metrics, settings.acquirePageSize(), completions,
                maxUnwrittenOutcomes(), settings.acquireInterval(), sql,
                maintenance, unstarted, node);
        this.renewer = new LockRenewer(dataSource, maintenance, held, database, heartbeats, metrics,
                settings.lockRenewInterval(), node);
        // Quiet period: until every live node renewed after an outage (ExecutorSettings.sweepQuietPeriod).
        this.sweeper = new ExpiredLockSweeper(dataSource, maintenance, held, database, heartbeats, metrics,
                settings.expiredLockSweepInterval(), settings.sweepQuietPeriod(), node);
        this.session = new NodeSession(dataSource, sql, owner, acquirer::wakeUp, database, heartbeats, node);
        metrics.gauge("drover.queue.depth", "Jobs acquired and waiting for a worker", pool::queued);
        metrics.gauge("drover.queue.capacity", "The queueSize setting", pool::capacity);
        metrics.gauge("drover.threads.busy", "Workers running a job", pool::busy);
        metrics.gauge("drover.threads", "The threads setting", settings::threads);
        metrics.gauge("drover.threads.stuck", "Workers given up in handlers that ignored their timeout's interrupt",
                pool::stuck);
        metrics.gauge("drover.jobs.held", "Jobs locked by this node (queued, running or completing)", held::size);
        metrics.gauge("drover.completion.pending", "Job outcomes waiting to be written", completions::pending);
        metrics.gauge("drover.completion.unwritable", "Job outcomes the database refuses to store, not even as dead"
                + " letters: their jobs stay locked by this node, and they are written again every 10 s", completions::unwritable);
    }

    private static AcquisitionStrategy strategy(ExecutorSettings s, JobSql sql, String owner, ExecutorMetrics metrics) {
        return switch (s.lockMode()) {
            case SkipLocked -> new SkipLockedAcquisition(sql, owner, s.lockExpiry());
            case Optimistic -> new OptimisticAcquisition(sql, owner, s.lockExpiry(), metrics);
            case Global -> new GlobalLockAcquisition(sql, owner, s.lockExpiry(),
                    new GlobalAcquireLock(s.schema(), s.globalLockMaxHold()),
                    s.globalLockWaitTime(), s.globalLockPollInterval(), metrics);
        };
    }

    public synchronized void start() {
        if (state != State.NEW) {
            throw new IllegalStateException("engine already " + state);
        }
        // Presence first: from now on a node starting with this name sees this one alive.
        session.start();
        try {
            if (!session.awaitPresence(Duration.ofSeconds(10))) {
                LOG.warn("The node's session did not connect within 10 s; starting anyway (it keeps trying)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!Thread.currentThread().isInterrupted()) {
            releasePredecessorLocks();
        }
        if (Thread.currentThread().isInterrupted()) {
            // The node is stopping as it starts (the interrupt of its start-up): no loop starts,
            // no job is taken. It went on into the predecessors' release and every loop, and its
            // stop then began with a full grace period, far past the pod's termination grace.
            abandonStart();
            return;
        }
        completions.start();
        starter.start();
        pool.start();
        renewer.start();
        sweeper.start();
        acquirer.start();
        state = State.RUNNING;
        LOG.infof("Drover node %s started: lockMode=%s threads=%d%s queueSize=%d acquirePageSize=%d lockExpiry=%s"
                        + " jobTimeout=%s maxCrashes=%d", owner, settings.lockMode(), settings.threads(),
                settings.virtualThreads() ? " (virtual)" : "", settings.queueSize(), settings.acquirePageSize(),
                settings.lockExpiry(), settings.jobTimeout(), settings.maxCrashes());
    }

    private void abandonStart() {
        Thread.interrupted(); // the interrupt that ended the start, set again below: the wait must not end at once
        try {
            session.stop(Duration.ofSeconds(2));
        } catch (InterruptedException ignored) {
            // interrupted again: the session ends on its own
        }
        state = State.STOPPED;
        Thread.currentThread().interrupt();
        LOG.infof("Drover node %s stopped as it started: no job was taken", owner);
    }

    private void releasePredecessorLocks() {
        try (Connection c = dataSource.getConnection()) {
            for (LockMaintenance.Predecessor p : maintenance.releasePredecessors(c, NodeSession.RECONNECTED_WITHIN)) {
                if (p.released() == null) {
                    LOG.warnf("Jobs locked by %s, an earlier run of this node's name %s, are left to expire: %s"
                            + " (node names should be unique among live nodes sharing a schema)", p.owner(),
                            settings.nodeName(), p.left());
                } else if (p.released().total() > 0) {
                    metrics.locksRecovered(p.released().unlocked(), p.released().crashed(), p.released().poisoned());
                    LOG.infof("Released %d jobs of %s, an earlier run of this node that is gone: %d were running"
                            + " (a crash each), %d moved to dead letters as poison", p.released().total(), p.owner(),
                            p.released().crashed() + p.released().poisoned(), p.released().poisoned());
                }
            }
        } catch (Exception e) {
            LOG.warnf("Could not release locks of earlier runs of node %s (they will expire instead): %s",
                    settings.nodeName(), e.getMessage());
        }
    }

    /** How long a stopping node may run past its shutdownGracePeriod (ExecutorClusterSpec's rule leaves 10 s). */
    static final Duration AFTER_GRACE = Duration.ofSeconds(7);
    /** Of AFTER_GRACE, what the waits before the last outcomes leave them. */
    private static final Duration OUTCOMES_AT_LEAST = Duration.ofSeconds(3);

    /** {@code max}, or less if {@code until} (nanoTime) comes sooner; zero if it has passed. */
    private static Duration upTo(Duration max, long until) {
        return Duration.ofNanos(Math.max(0, Math.min(max.toNanos(), until - System.nanoTime())));
    }

    /**
     * Graceful stop: stop acquiring; hand queued, unstarted jobs back to the fleet at once; let
     * running jobs finish within {@code shutdownGracePeriod}; write every outcome; stop renewing
     * locks, then the session (the presence lock), last.
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
            pool.beginStopping();
            // Each wait of the stop is bounded by its deadlines: a statement hung on a dead
            // connection (a black-holed network, a frozen server) ignores the interrupt, and a
            // node that stops past shutdownGracePeriod + AFTER_GRACE is killed by the kubelet.
            acquirer.stop(upTo(Duration.ofSeconds(30), deadline));
            Thread release = releaseUnstarted(pool.stopAndDrainQueued());
            List<String> busy = pool.awaitRunningJobs(deadline);
            if (!busy.isEmpty()) {
                LOG.warnf("Workers still busy after shutdownGracePeriod %s were interrupted: %s",
                        settings.shutdownGracePeriod(), String.join(", ", busy));
            }
            // Past the grace period the node gets AFTER_GRACE in all (the interrupted runs' second,
            // a start mark's answer, the last outcomes), within the 10 s the CRD keeps between
            // shutdownGracePeriod and the pod's terminationGracePeriodSeconds: the kubelet must not
            // kill it while it writes them. Each wait before the outcomes leaves them 3 s at least.
            long end = deadline + AFTER_GRACE.toNanos();
            if (release != null) {
                release.join(upTo(Duration.ofSeconds(10), end - OUTCOMES_AT_LEAST.toNanos()));
            }
            starter.stop(upTo(Duration.ofSeconds(10), end - OUTCOMES_AT_LEAST.toNanos()));
            pool.awaitWorkers(upTo(Duration.ofSeconds(2), end - OUTCOMES_AT_LEAST.toNanos()));
            // Outcomes get the rest: losing them means re-running jobs.
            completions.stop(end);
            sweeper.stop(upTo(Duration.ofSeconds(5), end));
            renewer.stop(upTo(Duration.ofSeconds(5), end));
            session.stop(upTo(Duration.ofSeconds(2), end));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            state = State.STOPPED;
            LOG.infof("Drover node %s stopped", owner);
        }
    }

    /**
     * Hands the queued, unstarted jobs back to the fleet ({@link UnstartedRelease}), on a thread of
     * its own, while the stop waits for the running jobs: with the database hung, getting a
     * connection and the statement take up to databaseTimeout each, which the stop must not wait
     * beyond its deadlines (it joins the thread within them).
     *
     * @return the thread releasing them; null if there were none
     */
    private Thread releaseUnstarted(List<HeldJobs.Lease> queued) {
        if (queued.isEmpty()) {
            return null;
        }
        List<Long> ids = unstarted.drop(queued);
        return Thread.ofPlatform().daemon().name("drover-release-" + settings.nodeName())
                .start(() -> unstarted.release(ids, "queued jobs that had not started"));
    }

    /** Wakes an idle acquirer, e.g. right after jobs were enqueued through this node. */
    public void wakeUp() {
        acquirer.wakeUp();
    }

    public State state() {
        return state;
    }

    /**
     * Why this node cannot take jobs now, in a status's words (its acquisition's latest failure,
     * e.g. "DatabaseReadOnly: the database takes only reads ..."), from a failed cycle until the
     * next one that works; empty otherwise. Readiness and the node's figures carry it, so a node
     * that is not ready says why without its log (one failure alone does not make it unready).
     */
    public java.util.Optional<DatabaseDiagnosis> problem() {
        return state == State.RUNNING ? java.util.Optional.ofNullable(acquirer.failing()) : java.util.Optional.empty();
    }

    /** True while running and acquisition has not been failing for longer than {@code window}. */
    public boolean acquiring(Duration window) {
        return state == State.RUNNING && acquirer.healthy(window);
    }

    /**
     * Why this node cannot do its work any more (empty when it can): a loop that stopped making
     * progress, workers all stuck, or workers the JVM could not start. Liveness reports these, so the node is restarted instead
     * of holding its jobs while it looks healthy.
     */
    public List<String> stuck() {
        if (state != State.RUNNING) {
            return state == State.STOPPED ? List.of("engine stopped") : List.of();
        }
        List<String> problems = new ArrayList<>(heartbeats.silentFor(settings.stallTimeout().toNanos()));
        String workers = pool.problem(settings.stallTimeout());
        if (workers != null) {
            problems.add(workers);
        }
        int held = completions.unwritable();
        if (held >= maxUnwrittenOutcomes()) {
            // Every outcome refused (a storage fault on the job table, a grant revoked in a way no
            // probe sees): the node holds as many as it may and takes no more jobs; say so.
            problems.add(held + " finished jobs' outcomes the database refuses to store, not even as dead letters:"
                    + " the node takes no more jobs (the log names them and the database's reason: \"could not be written"
                    + " at all\")");
        }
        long stalled = completions.stalledNanos();
        if (stalled > settings.stallTimeout().toNanos() && database.reachable()) {
            // The database answers, yet outcomes cannot be written (a permission, a trigger):
            // no job starts meanwhile, so the node does no work; say so rather than wait silently.
            problems.add("job outcomes could not be written for " + stalled / 1_000_000_000L
                    + " s while the database answers: " + completions.lastProblem());
        }
        return problems;
    }

    /** Outcomes waiting (or held) past which the node takes no more jobs. */
    private int maxUnwrittenOutcomes() {
        return Math.max(settings.queueSize(), settings.completionBatchSize());
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
