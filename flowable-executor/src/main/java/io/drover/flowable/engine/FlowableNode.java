package io.drover.flowable.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.contract.Causes;
import io.drover.contract.DatabaseDiagnosis;
import io.drover.contract.FlowablePool;
import io.drover.contract.SqlStates;
import io.drover.flowable.config.AsyncExecutorMapping;
import io.drover.flowable.config.FlowableSettings;
import io.drover.flowable.config.InvalidSettingsException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.flowable.engine.ProcessEngine;
import org.flowable.engine.impl.cfg.ProcessEngineConfigurationImpl;
import org.flowable.engine.impl.cfg.StandaloneProcessEngineConfiguration;
import org.flowable.job.service.impl.asyncexecutor.AbstractAsyncExecutor;
import org.flowable.job.service.impl.asyncexecutor.AsyncExecutor;
import org.flowable.job.service.impl.asyncexecutor.AsyncJobExecutorConfiguration;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One node of a Flowable fleet: a process engine on the cluster's database whose async
 * executor runs with the ExecutorCluster's settings ({@link AsyncExecutorMapping}).
 *
 * <p>Start-up is retried while the database cannot be reached, for {@code startupTimeout}, as
 * the Drover executor's: the pod is alive but not ready meanwhile. Anything else that stops it
 * (a model that does not parse, a delegate missing, permission denied, a wrong password) ends the
 * process at once with the cause: no retry can fix it. Creating or upgrading Flowable's schema is
 * done under an advisory lock, so a fleet starting at once does not race on it.
 *
 * <p>Running, it renews the locks of the jobs it holds ({@link LockRenewal}: Flowable does not)
 * and watches its acquisition loops ({@link AcquisitionWatch}) for its liveness. Stop lets the
 * jobs it acquired finish before the engine closes ({@link #stop}).
 */
@ApplicationScoped
public class FlowableNode {
    private static final Logger LOG = Logger.getLogger(FlowableNode.class);
    /** pg_advisory_lock key of the schema's creation: "flowable" in ASCII. */
    private static final long SCHEMA_LOCK = 0x666c6f7761626c65L;
    /** SQLSTATE classes of a database that is away or busy, worth waiting for; anything else is final. */
    private static final Set<String> TRANSIENT_SQL_STATES = Set.of("40", "57");

    /** What the node is doing, for its health checks. */
    public enum State { STARTING, RUNNING, STOPPING, FAILED }

    private final FlowableSettings settings;
    private final AgroalDataSource dataSource;
    private final MeterRegistry registry;
    private final int poolSize;
    private final AtomicReference<State> state = new AtomicReference<>(State.STARTING);
    private final Instant started = Instant.now();
    private volatile String waitingFor = "starting";
    private volatile ProcessEngine engine;
    private volatile MeteredTaskExecutor jobThreads;
    private volatile HeldJobsExecutor heldExecutor;
    private volatile AsyncExecutorMapping mapping;
    private volatile AsyncJobExecutorConfiguration executorConfiguration;
    private volatile AcquisitionWatch watch;
    private final DatabaseAnswers database = new DatabaseAnswers();
    private volatile LockRenewal renewal;
    private volatile Thread starter;

    public FlowableNode(FlowableSettings settings, AgroalDataSource dataSource, MeterRegistry registry,
                        @ConfigProperty(name = "quarkus.datasource.jdbc.max-size") int poolSize) {
        this.settings = settings;
        this.dataSource = dataSource;
        this.registry = registry;
        this.poolSize = poolSize;
    }

    void onStart(@Observes StartupEvent event) {
        // Bad settings end the process at once, naming each: no retry can fix them.
        mapping = AsyncExecutorMapping.of(settings);
        if (poolSize < FlowablePool.minimumFor(settings.threads())) {
            throw new InvalidSettingsException(List.of("the database pool (database.maxPoolSize, QUARKUS_DATASOURCE_JDBC_MAX_SIZE = "
                    + poolSize + ") must hold at least threads + " + FlowablePool.SPARE_CONNECTIONS + " = "
                    + FlowablePool.minimumFor(settings.threads()) + " connections for the Flowable engine: each running job holds one"));
        }
        watch = new AcquisitionWatch(registry);
        Gauge.builder("drover.threads", () -> settings.threads()).description("Worker threads of this node").register(registry);
        Gauge.builder("drover.threads.busy", this, n -> n.jobThreads == null ? 0 : n.jobThreads.busyThreads())
                .description("Worker threads running a job").register(registry);
        Gauge.builder("drover.queue.depth", this, n -> n.jobThreads == null ? 0 : n.jobThreads.queued())
                .description("Jobs acquired and waiting for a thread").register(registry);
        Gauge.builder("drover.queue.capacity", () -> settings.queueSize()).description("Jobs a node may hold queued").register(registry);
        starter = Thread.ofPlatform().name("flowable-startup").start(this::startWithRetries);
    }

    private void startWithRetries() {
        Instant deadline = started.plus(settings.startupTimeout());
        Duration backoff = Duration.ofMillis(500);
        while (state.get() == State.STARTING) {
            try {
                start();
                return;
            } catch (Throwable e) {
                Throwable cause = Causes.root(e);
                if (!databaseAway(e)) {
                    fail("The Flowable engine cannot start: " + cause, e);
                    return;
                }
                if (Instant.now().isAfter(deadline)) {
                    fail("The Flowable engine could not reach its database within startupTimeout " + settings.startupTimeout()
                            + ": " + cause, null);
                    return;
                }
                // Readiness shows this to whoever reaches the pod: the problem's word and the
                // SQLState, never the driver's message (it can name hosts and roles; the log below has it).
                waitingFor = "the database: " + DatabaseDiagnosis.of(e);
                LOG.warnf("Starting the Flowable engine failing, retrying for up to %s: %s", settings.startupTimeout(), cause);
                try {
                    Thread.sleep(backoff.toMillis());
                } catch (InterruptedException interrupted) {
                    return;
                }
                backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(10)) > 0 ? Duration.ofSeconds(10) : backoff.multipliedBy(2);
            }
        }
    }

    private void start() throws SQLException {
        String schema = settings.schema();
        ProcessEngineConfigurationImpl cfg = new StandaloneProcessEngineConfiguration();
        cfg.setDataSource(dataSource);
        cfg.setDatabaseSchema(schema);
        cfg.setDatabaseSchemaUpdate(ProcessEngineConfigurationImpl.DB_SCHEMA_UPDATE_TRUE);
        cfg.setCreateDiagramOnDeploy(false); // no AWT in the image
        cfg.setEngineName("drover-" + mapping.owner());
        cfg.setClassLoader(ProcessFiles.classLoader(settings.flowable().processesDir(), getClass().getClassLoader()));
        mapping.applyTo(cfg);
        MeteredTaskExecutor threads = new MeteredTaskExecutor(cfg.getAsyncExecutorTaskExecutorConfiguration());
        threads.start();
        cfg.setAsyncTaskExecutor(threads);
        HeldJobs heldJobs = new HeldJobs(settings.lockExpiry());
        HeldJobsExecutor asyncExecutor = new HeldJobsExecutor(cfg.getAsyncExecutorConfiguration(), heldJobs);
        cfg.setAsyncExecutor(asyncExecutor);
        cfg.setAsyncExecutorActivate(false); // started below, once the models are deployed
        // The engine's handlers, as its configuration holds them once built (the events come after).
        cfg.setEventListeners(List.of(new JobOutcomes(registry, type -> cfg.getJobHandlers() != null
                && cfg.getJobHandlers().containsKey(type))));

        waitingFor = "Flowable's schema " + schema;
        ProcessEngine built = null;
        try {
            // One node at a time creates or upgrades the schema (a pooled connection holds the lock
            // while the engine builds on others: the pool holds threads + 9); the others wait,
            // then find it done. The schema is created only if missing: CREATE needs a right on
            // the database that a role owning an existing schema may not have.
            try (Connection lock = dataSource.getConnection(); Statement s = lock.createStatement()) {
                s.execute("select pg_advisory_lock(" + SCHEMA_LOCK + ")");
                try {
                    try (var rs = s.executeQuery("select 1 from pg_namespace where nspname = '" + schema + "'")) {
                        if (!rs.next()) {
                            s.execute("create schema if not exists " + schema);
                        }
                    }
                    built = cfg.buildProcessEngine();
                    waitingFor = "deploying the process models";
                    ProcessFiles.deploy(built.getRepositoryService(), settings.flowable().processesDir());
                } finally {
                    s.execute("select pg_advisory_unlock(" + SCHEMA_LOCK + ")");
                }
            }
            AsyncExecutor executor = built.getProcessEngineConfiguration().getAsyncExecutor();
            if (executor instanceof AbstractAsyncExecutor watched) {
                watched.setAsyncJobsDueLifecycleListener(watch.jobs());
                watched.setTimerLifecycleListener(watch.timers());
            }
            jobThreads = threads;
            heldExecutor = asyncExecutor;
            executorConfiguration = cfg.getAsyncExecutorConfiguration();
            engine = built;
            if (!state.compareAndSet(State.STARTING, State.RUNNING)) {
                return; // stopping meanwhile: stop() closes it
            }
            if (settings.enabled()) {
                renewal = new LockRenewal(dataSource, schema, mapping.owner(), settings.lockExpiry(), heldJobs, database);
                watch.reset();
                try {
                    executor.start(); // its first act is a database command (freeing this owner's locks)
                } catch (RuntimeException failed) {
                    // Not running after all: back to STARTING, so that startWithRetries tries again
                    // (or ends the node) instead of leaving a closed engine reported as running.
                    renewal.close();
                    renewal = null;
                    engine = null;
                    state.compareAndSet(State.RUNNING, State.STARTING);
                    throw failed;
                }
            }
            built = null; // kept
        } finally {
            if (built != null) { // an attempt that failed after building: do not leak its engine
                try {
                    built.close();
                } catch (RuntimeException ignored) {
                    // the next attempt builds another
                }
                threads.stopTaking();
            }
        }
        waitingFor = null;
        LOG.infof("Flowable node %s running: lockMode %s, threads %d, queueSize %d, acquirePageSize %d, schema %s%s",
                mapping.owner(), settings.lockMode(), settings.threads(), settings.queueSize(), settings.acquirePageSize(),
                schema, settings.enabled() ? "" : " (async executor disabled)");
    }

    /**
     * Stops acquiring, hands back the jobs it holds queued (as Flowable hands back a job its full
     * queue refuses: another node runs them now), lets the running ones finish within
     * shutdownGracePeriod, then closes the engine. Flowable's own close would unlock the node's
     * jobs while they still run, so one finishing afterwards fails and runs again; here nothing
     * this node started is handed back while it may still run, and nothing starts after the node
     * began to stop. Jobs that outlive the grace period keep their locks: this pod's next start
     * (same name) frees its async jobs, and lock expiry the rest.
     */
    void stop(@Observes ShutdownEvent event) {
        State was = state.getAndSet(State.STOPPING);
        Thread s = starter;
        if (s != null && was == State.STARTING) {
            s.interrupt();
            try {
                s.join(Duration.ofSeconds(10));
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        ProcessEngine e = engine;
        if (e == null) {
            return;
        }
        AsyncExecutor executor = e.getProcessEngineConfiguration().getAsyncExecutor();
        long graceEnds = System.nanoTime() + settings.shutdownGracePeriod().toNanos();
        try {
            // The pool first: Flowable's shutdown joins its acquisition threads without a bound
            // (one waiting for the global lock waits out globalLockWaitTime), and meanwhile the
            // pool went on starting queued jobs, and the last page acquired, after the stop began.
            // Stopped, it refuses what the acquisition hands it, which Flowable hands back as it
            // does a job its full queue refuses.
            List<Runnable> queued = jobThreads.stopTaking();
            if (!queued.isEmpty()) {
                int kept = heldExecutor.handBack(queued);
                LOG.infof("Handed back %d queued jobs%s", queued.size() - kept,
                        kept == 0 ? "" : "; " + kept + " could not be, and run elsewhere after lockExpiry");
            }
            if (executor != null && executor.isActive()) {
                executorConfiguration.setUnlockOwnedJobs(false);
                executor.shutdown(); // acquisition, timer and expired-lock threads
            }
            if (!jobThreads.awaitRunning(Duration.ofNanos(Math.max(0, graceEnds - System.nanoTime())))) {
                LOG.warnf("Jobs still running after shutdownGracePeriod %s; their locks lapse after lockExpiry",
                        settings.shutdownGracePeriod());
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException failure) {
            LOG.warnf("Stopping the async executor: %s", failure.toString());
        } finally {
            LockRenewal r = renewal;
            if (r != null) {
                r.close(); // after the drain: a job still running keeps its lock meanwhile
            }
        }
        try {
            e.close();
        } catch (RuntimeException failure) {
            LOG.warnf("Closing the Flowable engine: %s", failure.toString());
        }
    }

    public State state() {
        return state.get();
    }

    /** What a starting node waits for, for its readiness check; null once running. */
    public String waitingFor() {
        return waitingFor;
    }

    public boolean executorActive() {
        ProcessEngine e = engine;
        if (e == null || !settings.enabled()) {
            return e != null;
        }
        AsyncExecutor executor = e.getProcessEngineConfiguration().getAsyncExecutor();
        return executor != null && executor.isActive();
    }

    /**
     * Why the node cannot work, or null: it failed; it has been starting for longer than
     * startupTimeout; or its async executor stopped, or one of its acquisition loops has not
     * turned for longer than any legitimate wait (a global lock wait, an idle interval and a
     * database call bounded by lockExpiry, twice, plus 30 s), as the Drover executor's stall
     * timeout reckons.
     */
    public String cannotWork() {
        return switch (state.get()) {
            case FAILED -> "failed to start";
            case STOPPING -> null;
            case STARTING -> Instant.now().isAfter(started.plus(settings.startupTimeout()).plusSeconds(30))
                    ? "still starting after startupTimeout " + settings.startupTimeout() : null;
            case RUNNING -> {
                if (!settings.enabled()) {
                    yield null;
                }
                if (!executorActive()) {
                    yield "the async executor stopped";
                }
                Duration stalled = watch.stalledFor();
                // A loop waiting on a database that answers nobody (frozen, black-holed) is the
                // readiness check's to report: a restart would not bring the database back. Stuck
                // while the database answers the node's other calls, it is the node's fault.
                yield stalled.compareTo(stallTimeout()) > 0 && database.answeredWithin(ANSWERED_RECENTLY)
                        ? "an acquisition loop has not turned for " + stalled.toSeconds() + " s while the database answers" : null;
            }
        };
    }

    /**
     * Within the stall budget's 30 s margin: an answer this recent came after the loop stalled, and
     * the readiness check, every 5 s in the operator's pods, gives one while the database answers.
     */
    private static final Duration ANSWERED_RECENTLY = Duration.ofSeconds(30);

    /** The record of the database's answers to this node's own calls, for liveness. */
    public DatabaseAnswers database() {
        return database;
    }

    Duration stallTimeout() {
        Duration longest = settings.globalLockWaitTime().compareTo(settings.acquireInterval()) > 0
                ? settings.globalLockWaitTime() : settings.acquireInterval();
        return longest.plus(settings.lockExpiry()).multipliedBy(2).plusSeconds(30);
    }

    /** The running engine, for the bench and tests; null until started. */
    public ProcessEngine engine() {
        return engine;
    }

    private void fail(String message, Throwable e) {
        state.set(State.FAILED);
        if (e == null) {
            LOG.error(message);
        } else {
            LOG.error(message, e);
        }
        Quarkus.asyncExit(1);
    }

    /**
     * The database cannot be reached or is busy: worth waiting for. As a Drover node judges it
     * ({@link DatabaseDiagnosis#unreachable}: 08, 57P, 53, a read-only server, no SQLState), and a
     * serialization failure or a cancelled statement too (40, 57014); any other SQLState (a wrong
     * password, a refused permission) ends the node with the cause. A failure with neither a
     * SQLException nor an I/O error in its chain is not the database's.
     */
    private static boolean databaseAway(Throwable e) {
        if (!Causes.has(e, SQLException.class, IOException.class)) {
            return false;
        }
        String state = SqlStates.first(e);
        return DatabaseDiagnosis.unreachable(e) || (state.length() >= 2 && TRANSIENT_SQL_STATES.contains(state.substring(0, 2)));
    }
}
