package io.drover.executor.service;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.engine.ExecutorEngine;
import io.drover.executor.handler.HandlerJars;
import io.drover.executor.handler.HandlerRegistry;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.metrics.ExecutorMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.All;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Runs the engine for the lifetime of the Quarkus application. Flyway has migrated the
 * schema before StartupEvent; handlers are every {@link JobHandler} CDI bean, every one
 * registered through ServiceLoader on the classpath, and every one in a jar in
 * {@code handlersDir} (how a derived image adds handlers).
 */
@Singleton
public class ExecutorService {
    private static final Logger LOG = Logger.getLogger(ExecutorService.class);

    private final DroverConfig config;
    private final ExecutorSettings settings;
    private final AgroalDataSource dataSource;
    private final MeterRegistry registry;
    private final List<JobHandler> handlerBeans;
    private ExecutorEngine engine;

    ExecutorService(DroverConfig config, ExecutorSettings settings, AgroalDataSource dataSource,
                    MeterRegistry registry, @All List<JobHandler> handlerBeans) {
        this.config = config;
        this.settings = settings;
        this.dataSource = dataSource;
        this.registry = registry;
        this.handlerBeans = handlerBeans;
    }

    void start(@Observes StartupEvent event) {
        List<JobHandler> all = new ArrayList<>(handlerBeans);
        List<JobHandler> fromJars = HandlerJars.load(config.handlersDir(), JobHandler.class.getClassLoader());
        if (!fromJars.isEmpty()) {
            LOG.infof("Loaded %d handlers from jars in %s", fromJars.size(), config.handlersDir());
        }
        all.addAll(fromJars);
        HandlerRegistry handlers = HandlerRegistry.withServiceLoader(all);
        if (!config.enabled().orElse(true)) {
            LOG.info("Job execution disabled (drover.enabled=false)");
            return;
        }
        LOG.infof("Job handlers: %s", handlers.types());
        engine = new ExecutorEngine(settings, dataSource, handlers, new ExecutorMetrics(registry));
        engine.start();
    }

    void stop(@Observes ShutdownEvent event) {
        if (engine != null) {
            engine.close();
        }
    }

    /** Wakes the local acquirer after jobs were enqueued through this node's API. */
    public void jobsEnqueued() {
        if (engine != null) {
            engine.wakeUp();
        }
    }

    /** The running engine, empty when execution is disabled. */
    public Optional<ExecutorEngine> engine() {
        return Optional.ofNullable(engine);
    }
}
