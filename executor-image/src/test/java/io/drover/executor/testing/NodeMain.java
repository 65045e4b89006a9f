package io.drover.executor.testing;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.acquire.LockMode;
import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.engine.ExecutorEngine;
import io.drover.executor.handler.HandlerRegistry;
import io.drover.executor.handler.NoopHandler;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.PooledDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One executor node as its own OS process, for tests that need real separate nodes: SIGKILL
 * (crash), SIGTERM (graceful shutdown). Arguments are key=value settings. Prints "READY" when
 * the engine runs and "STATS ..." after a graceful stop.
 */
public final class NodeMain {
    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        String schema = a.get("schema");
        String node = a.get("nodeName");
        ExecutorSettings.Builder b = ExecutorSettings.builder().nodeName(node).schema(schema)
                .lockMode(LockMode.parse(a.getOrDefault("lockMode", "SkipLocked")));
        if (a.containsKey("threads")) b.threads(Integer.parseInt(a.get("threads")));
        if (a.containsKey("queueSize")) b.queueSize(Integer.parseInt(a.get("queueSize")));
        if (a.containsKey("acquirePageSize")) b.acquirePageSize(Integer.parseInt(a.get("acquirePageSize")));
        if (a.containsKey("lockExpiry")) b.lockExpiry(Duration.parse(a.get("lockExpiry")));
        if (a.containsKey("shutdownGracePeriod")) b.shutdownGracePeriod(Duration.parse(a.get("shutdownGracePeriod")));
        if (a.containsKey("acquireInterval")) b.acquireInterval(Duration.parse(a.get("acquireInterval")));
        ExecutorSettings settings = b.build();

        AgroalDataSource ds = PooledDataSource.create(a.get("jdbcUrl"), "postgres", "postgres", settings.threads() + 5);
        ExecutorMetrics metrics = new ExecutorMetrics(new SimpleMeterRegistry());
        var handlers = HandlerRegistry.of(List.of(new NoopHandler(), new RecordingHandler(ds, schema, node)));
        ExecutorEngine engine = new ExecutorEngine(settings, ds, handlers, metrics);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            engine.close();
            System.out.println("STATS optimisticLockFailures=" + (long) metrics.optimisticLockFailureCount());
            System.out.flush();
            ds.close();
        }));
        engine.start();
        System.out.println("READY " + engine.owner());
        System.out.flush();
        Thread.currentThread().join();
    }
}
