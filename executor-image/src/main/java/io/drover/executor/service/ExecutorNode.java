package io.drover.executor.service;

import io.agroal.api.AgroalDataSource;
import io.drover.contract.DatabaseDiagnosis;
import io.drover.contract.NodeProblem;
import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.engine.ExecutorEngine;
import io.drover.executor.handler.HandlerJars;
import io.drover.executor.handler.HandlerRegistry;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.PooledDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.All;
import io.quarkus.arc.InstanceHandle;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;
import org.flywaydb.core.Flyway;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * This executor node: runs the engine for the lifetime of the Quarkus application (named so,
 * not ExecutorService, to stay clear of the JDK's java.util.concurrent type). Start-up happens in the
 * background: migrate the schema (Flyway), retried while the database is unreachable
 * ({@link DatabaseStartup}), then start the engine. Meanwhile the node is alive and not ready,
 * and readiness says what it waits for. Handlers are every {@link JobHandler} CDI bean, every
 * one registered through ServiceLoader on the classpath, and every one in a jar in
 * {@code handlersDir} (how a derived image adds handlers).
 */
@Singleton
public class ExecutorNode {
    private static final Logger LOG = Logger.getLogger(ExecutorNode.class);
    /** Where Kubernetes reads a container's last words (terminationMessagePath's default). */

    private final DroverConfig config;
    private final Instance<ExecutorSettings> validSettings;
    private final AgroalDataSource dataSource;
    private final Flyway flyway;
    private final MeterRegistry registry;
    private final List<InstanceHandle<JobHandler>> handlerBeans;
    private volatile ExecutorSettings settings;
    private volatile String waitingFor = "starting";
    /** While starting: why the last try of the start-up failed, until it succeeds (the figures' problem). */
    private volatile DatabaseDiagnosis startupFailing;
    private volatile ExecutorEngine engine;
    private volatile boolean started;
    /**
     * Guards the engine's making against the node's stop: a stop during start-up (a pod deleted
     * while its schema migrates) interrupted the start-up thread, but JDBC and Flyway ignore
     * interrupts, so the engine was made and started after the stop had closed nothing, and took
     * jobs that the JVM's exit then cut. Either the stop comes first and no engine is made, or the
     * engine is made first and the stop closes it.
     */
    private final Object making = new Object();
    private volatile boolean stopping; // written under making; read without it by liveness
    private AgroalDataSource enginePool;
    private volatile Thread startup;
    private volatile StartupWatch startupWatch;
    private volatile boolean migrating;

    /**
     * The settings and the handler beans are made in {@link #start}, not injected made: a bad
     * setting or a handler that cannot be made then ends the node with its cause as the pod's
     * termination message (which the operator shows), not only in the log of a failed boot.
     */
    ExecutorNode(DroverConfig config, Instance<ExecutorSettings> validSettings, AgroalDataSource dataSource, Flyway flyway,
                    MeterRegistry registry, @All List<InstanceHandle<JobHandler>> handlerBeans) {
        this.config = config;
        this.validSettings = validSettings;
        this.dataSource = dataSource;
        this.flyway = flyway;
        this.registry = registry;
        this.handlerBeans = handlerBeans;
    }

    void start(@Observes StartupEvent event) {
        HandlerRegistry handlers;
        try {
            settings = validSettings.get();
            handlers = handlers();
        } catch (RuntimeException | java.util.ServiceConfigurationError e) {
            // A bad setting (every one named), a handler bean that cannot be made, a handler jar
            // naming a class it lacks, two handlers of one type.
            fail(NodeProblem.StartupFailed.name(), "Start-up failed: " + DatabaseStartup.cause(e), e);
            return;
        }
        startupWatch = new StartupWatch(config.startupTimeout());
        startup = Thread.ofPlatform().name("drover-startup").start(() -> startUp(handlers));
    }

    private HandlerRegistry handlers() {
        List<JobHandler> all = new ArrayList<>();
        handlerBeans.forEach(h -> all.add(h.get()));
        List<JobHandler> fromJars = HandlerJars.load(config.handlersDir(), JobHandler.class.getClassLoader());
        if (!fromJars.isEmpty()) {
            LOG.infof("Loaded %d handlers from jars in %s", fromJars.size(), config.handlersDir());
        }
        all.addAll(fromJars);
        return HandlerRegistry.withServiceLoader(all);
    }

    private void startUp(HandlerRegistry handlers) {
        try {
            // One step, one name ("Migrating the schema x"), which readiness, the log and the
            // termination message say: the database is checked first, before anything changes in it.
            String step = "Migrating the schema " + settings.schema();
            DatabaseStartup.retry(step, () -> {
                checkDatabase();
                migrating = true;
                try {
                    flyway.migrate();
                } finally {
                    migrating = false;
                }
            }, config.startupTimeout(), failing -> {
                waitingFor = step + ": " + failing;
                startupFailing = failing;
            });
            startupFailing = null;
            if (!config.enabled()) {
                LOG.info("Job execution disabled (drover.enabled=false)");
            } else {
                LOG.infof("Job handlers: %s", handlers.types());
                synchronized (making) {
                    if (stopping) {
                        return; // stopped while the schema was being migrated: no engine
                    }
                    enginePool = PooledDataSource.forEngine(dataSource, settings.databaseTimeout());
                    ExecutorEngine e = new ExecutorEngine(settings, enginePool, handlers, new ExecutorMetrics(registry));
                    e.start();
                    engine = e;
                }
            }
            started = true;
        } catch (DatabaseStartup.Failed e) {
            fail(e.problem().name(), e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // shutting down while starting
        } catch (RuntimeException | Error e) {
            // An Error too (a thread the JVM cannot create, a class missing from a jar): the thread
            // would end with the node "starting" for good.
            fail(NodeProblem.StartupFailed.name(), "Start-up failed: " + DatabaseStartup.cause(e), e);
        }
    }

    private void checkDatabase() throws Exception {
        var problem = io.drover.executor.store.DatabaseEncoding.problem(dataSource);
        if (problem.isPresent()) {
            throw new DatabaseStartup.Unsuitable(NodeProblem.StartupFailed, problem.get());
        }
    }

    /**
     * Ends the process with the cause as its last words: the log, and the pod's termination
     * message "Reason: cause" (drover.terminationMessagePath), which the operator reads from the
     * pod's status to say in the ExecutorCluster's conditions why the node cannot start.
     */
    private void fail(String reason, String cause, Throwable e) {
        LOG.error(reason + ": " + cause, e);
        waitingFor = "failed: " + reason + " (the log and the termination message say why)";
        try {
            Path path = config.terminationMessagePath();
            if (Files.isWritable(path) || (!Files.exists(path) && path.getParent() != null && Files.isWritable(path.getParent()))) {
                // The kubelet keeps at most 4096 bytes; one line is what is needed.
                String line = reason + ": " + cause;
                Files.writeString(path, line.length() > 4000 ? line.substring(0, 4000) : line, StandardCharsets.UTF_8);
            }
        } catch (Exception ignored) {
            // the log has it
        }
        Quarkus.asyncExit(1);
    }

    void stop(@Observes ShutdownEvent event) {
        stopping = true; // first: liveness must not take the interrupted start-up for a failed one
        if (startup != null && startup.isAlive()) {
            startup.interrupt();
        }
        ExecutorEngine e;
        AgroalDataSource pool;
        synchronized (making) {
            stopping = true;
            e = engine;
            pool = enginePool;
        }
        if (e != null) {
            e.close();
        }
        if (pool != null) {
            pool.close();
        }
    }

    /** Wakes the local acquirer after jobs were enqueued through this node's API. */
    public void jobsEnqueued() {
        ExecutorEngine e = engine;
        if (e != null) {
            e.wakeUp();
        }
    }

    /** The running engine, empty when execution is disabled or the node is still starting. */
    public Optional<ExecutorEngine> engine() {
        return Optional.ofNullable(engine);
    }

    /** True once start-up finished (schema migrated, engine running unless disabled). */
    public boolean started() {
        return started;
    }

    /**
     * Why a start-up that has not finished never will (liveness restarts the node), or empty:
     * started, failing (it ends the node itself), stopping, or still within startupTimeout.
     */
    public Optional<String> startupStuck() {
        StartupWatch watch = startupWatch;
        // Not under making: the start-up holds it while the engine starts, and a probe must not wait.
        if (started || stopping || watch == null || waitingFor.startsWith("failed")) {
            return Optional.empty();
        }
        Optional<String> problem = watch.problem(startup, waitingFor, migrating, System.nanoTime());
        // Read again: the start-up may have finished, or the stop begun, while the watch looked.
        return started || stopping ? Optional.empty() : problem;
    }

    /** While starting: what the node is waiting for. */
    public String startupStatus() {
        return waitingFor;
    }

    /**
     * While starting: why its start-up keeps failing (the database unreachable, refusing it), in
     * the words a running node uses, so that the operator can name the cause of a node that is not
     * ready yet for all of its startupTimeout, not only once it gives up; empty otherwise.
     */
    public Optional<DatabaseDiagnosis> startupProblem() {
        DatabaseDiagnosis failing = startupFailing;
        return started || stopping || waitingFor.startsWith("failed") ? Optional.empty() : Optional.ofNullable(failing);
    }
}
