package io.drover.flowable.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.flowable.config.AsyncExecutorMapping;
import io.drover.flowable.config.FlowableSettings;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.flowable.engine.ProcessEngine;
import org.flowable.engine.impl.cfg.ProcessEngineConfigurationImpl;
import org.flowable.engine.impl.cfg.StandaloneProcessEngineConfiguration;
import org.flowable.job.service.impl.asyncexecutor.AsyncExecutor;
import org.flowable.job.service.impl.asyncexecutor.AsyncJobExecutorConfiguration;
import org.jboss.logging.Logger;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One node of a Flowable fleet: a process engine on the cluster's database whose async
 * executor runs with the ExecutorCluster's settings ({@link AsyncExecutorMapping}).
 *
 * <p>Start-up is retried while the database is away, for {@code startupTimeout}, as the Drover
 * executor's: the pod is alive but not ready meanwhile. Creating or upgrading Flowable's schema
 * is done under an advisory lock, so a fleet starting at once does not race on it. Stop lets the
 * jobs this node holds finish before the engine closes ({@link #stop}).
 */
@ApplicationScoped
public class FlowableNode {
    private static final Logger LOG = Logger.getLogger(FlowableNode.class);
    /** pg_advisory_lock key of the schema's creation: "flowable" in ASCII. */
    private static final long SCHEMA_LOCK = 0x666c6f7761626c65L;

    /** What the node is doing, for its health checks. */
    public enum State { STARTING, RUNNING, STOPPING, FAILED }

    private final FlowableSettings settings;
    private final AgroalDataSource dataSource;
    private final MeterRegistry registry;
    private final AtomicReference<State> state = new AtomicReference<>(State.STARTING);
    private volatile String waitingFor = "starting";
    private volatile ProcessEngine engine;
    private volatile MeteredTaskExecutor jobThreads;
    private volatile AsyncExecutorMapping mapping;
    private volatile AsyncJobExecutorConfiguration executorConfiguration;
    private volatile Thread starter;

    public FlowableNode(FlowableSettings settings, AgroalDataSource dataSource, MeterRegistry registry) {
        this.settings = settings;
        this.dataSource = dataSource;
        this.registry = registry;
    }

    void onStart(@Observes StartupEvent event) {
        // Bad settings end the process at once, naming each: no retry can fix them.
        mapping = AsyncExecutorMapping.of(settings);
        Gauge.builder("drover.threads", () -> settings.threads()).description("Worker threads of this node").register(registry);
        Gauge.builder("drover.threads.busy", this, n -> n.jobThreads == null ? 0 : n.jobThreads.busyThreads())
                .description("Worker threads running a job").register(registry);
        Gauge.builder("drover.queue.depth", this, n -> n.jobThreads == null ? 0 : n.jobThreads.queued())
                .description("Jobs acquired and waiting for a thread").register(registry);
        Gauge.builder("drover.queue.capacity", () -> settings.queueSize()).description("Jobs a node may hold queued").register(registry);
        starter = Thread.ofPlatform().name("flowable-startup").start(this::startWithRetries);
    }

    private void startWithRetries() {
        Instant deadline = Instant.now().plus(settings.startupTimeout());
        Duration backoff = Duration.ofMillis(500);
        while (state.get() == State.STARTING) {
            try {
                start();
                return;
            } catch (SQLException | RuntimeException e) {
                Throwable cause = rootCause(e);
                if (Instant.now().isAfter(deadline)) {
                    LOG.errorf("The Flowable engine could not start within startupTimeout %s: %s", settings.startupTimeout(), cause);
                    state.set(State.FAILED);
                    Quarkus.asyncExit(1);
                    return;
                }
                waitingFor = "the database: " + cause.getMessage();
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
        executorConfiguration = cfg.getAsyncExecutorConfiguration();
        jobThreads = new MeteredTaskExecutor(cfg.getAsyncExecutorTaskExecutorConfiguration());
        jobThreads.start();
        cfg.setAsyncTaskExecutor(jobThreads);
        cfg.setAsyncExecutorActivate(false); // started below, once the models are deployed
        cfg.setEventListeners(java.util.List.of(new JobOutcomes(registry)));

        waitingFor = "Flowable's schema " + schema;
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            // One node at a time creates or upgrades the schema; the others wait, then find it done.
            s.execute("select pg_advisory_lock(" + SCHEMA_LOCK + ")");
            try {
                s.execute("create schema if not exists " + schema);
                engine = cfg.buildProcessEngine();
                waitingFor = "deploying the process models";
                ProcessFiles.deploy(engine.getRepositoryService(), settings.flowable().processesDir());
            } finally {
                s.execute("select pg_advisory_unlock(" + SCHEMA_LOCK + ")");
            }
        }
        if (settings.enabled()) {
            engine.getProcessEngineConfiguration().getAsyncExecutor().start();
        }
        state.set(State.RUNNING);
        waitingFor = null;
        LOG.infof("Flowable node %s running: lockMode %s, threads %d, queueSize %d, acquirePageSize %d, schema %s%s",
                mapping.owner(), settings.lockMode(), settings.threads(), settings.queueSize(), settings.acquirePageSize(),
                schema, settings.enabled() ? "" : " (async executor disabled)");
    }

    /**
     * Stops acquiring, lets the jobs already acquired (queued and running) finish within
     * shutdownGracePeriod, then closes the engine. Flowable's own close would unlock the node's
     * jobs while they still run, so one finishing afterwards fails and runs again; here nothing
     * this node acquired is handed back while it may still run. Jobs that outlive the grace
     * period keep their locks, freed by this pod's next start (same name) or by lock expiry.
     */
    void stop(@Observes ShutdownEvent event) {
        state.set(State.STOPPING);
        Thread s = starter;
        if (s != null) {
            s.interrupt();
        }
        ProcessEngine e = engine;
        if (e == null) {
            return;
        }
        AsyncExecutor executor = e.getProcessEngineConfiguration().getAsyncExecutor();
        try {
            if (executor != null && executor.isActive()) {
                executorConfiguration.setUnlockOwnedJobs(false);
                executor.shutdown(); // acquisition, timer and expired-lock threads
            }
            if (!jobThreads.drain(settings.shutdownGracePeriod())) {
                LOG.warnf("Jobs still running after shutdownGracePeriod %s; their locks lapse after lockExpiry",
                        settings.shutdownGracePeriod());
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException failure) {
            LOG.warnf("Stopping the async executor: %s", failure.toString());
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

    /** The running engine, for the bench and tests; null until started. */
    public ProcessEngine engine() {
        return engine;
    }

    private static Throwable rootCause(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c;
    }
}
