package io.drover.executor.testing;

import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.engine.ExecutorEngine;
import io.drover.executor.handler.HandlerRegistry;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.metrics.ExecutorMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import javax.sql.DataSource;
import java.util.List;
import java.util.function.UnaryOperator;

/** An engine inside the test JVM, for tests that need no process boundary. */
public final class TestNode {
    private TestNode() {
    }

    public static ExecutorEngine start(DataSource ds, String schema, UnaryOperator<ExecutorSettings.Builder> settings,
                                       List<JobHandler> handlers) {
        return start(ds, schema, settings, handlers, new SimpleMeterRegistry());
    }

    /** With the registry the engine's metrics go to, for a test that reads them. */
    public static ExecutorEngine start(DataSource ds, String schema, UnaryOperator<ExecutorSettings.Builder> settings,
                                       List<JobHandler> handlers, MeterRegistry registry) {
        ExecutorSettings s = settings.apply(ExecutorSettings.builder().nodeName("in-jvm").schema(schema)).build();
        ExecutorEngine engine = new ExecutorEngine(s, ds, HandlerRegistry.of(handlers), new ExecutorMetrics(registry));
        engine.start();
        return engine;
    }
}
