package io.drover.executor.testing;

import io.agroal.api.AgroalDataSource;
import io.drover.contract.SettingDefaults;
import io.drover.executor.acquire.LockMode;
import io.drover.executor.config.Durations;
import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.engine.ExecutorEngine;
import io.drover.executor.handler.HandlerRegistry;
import io.drover.executor.handler.NoopHandler;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.PooledDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One executor node as its own OS process, for tests that need real separate nodes: SIGKILL
 * (crash), SIGTERM (graceful shutdown). Arguments are key=value settings. Prints "READY" when
 * the engine runs and "STATS ..." after a graceful stop (also one a handler's System.exit began).
 */
public final class NodeMain {
    public static void main(String[] args) throws Exception {
        logToConsole();
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        String schema = a.get("schema");
        String node = a.get("nodeName");
        ExecutorSettings.Builder b = ExecutorSettings.builder().nodeName(node).schema(schema)
                .lockMode(LockMode.parse(a.getOrDefault("lockMode", SettingDefaults.LOCK_MODE)));
        if (a.containsKey("threads")) b.threads(Integer.parseInt(a.get("threads")));
        if (a.containsKey("queueSize")) b.queueSize(Integer.parseInt(a.get("queueSize")));
        if (a.containsKey("acquirePageSize")) b.acquirePageSize(Integer.parseInt(a.get("acquirePageSize")));
        if (a.containsKey("lockExpiry")) b.lockExpiry(Durations.parse("lockExpiry", a.get("lockExpiry")));
        if (a.containsKey("shutdownGracePeriod")) b.shutdownGracePeriod(Durations.parse("shutdownGracePeriod", a.get("shutdownGracePeriod")));
        if (a.containsKey("acquireInterval")) b.acquireInterval(Durations.parse("acquireInterval", a.get("acquireInterval")));
        if (a.containsKey("jobTimeout")) b.jobTimeout(Durations.parse("jobTimeout", a.get("jobTimeout")));
        if (a.containsKey("maxCrashes")) b.maxCrashes(Integer.parseInt(a.get("maxCrashes")));
        ExecutorSettings settings = b.build();

        // As in the service: the engine's own pool, and another for the handlers.
        AgroalDataSource engineDs = PooledDataSource.forEngine(a.get("jdbcUrl"), "postgres", "postgres",
                settings.databaseTimeout());
        AgroalDataSource ds = PooledDataSource.create(a.get("jdbcUrl"), "postgres", "postgres", settings.threads() + 2);
        ExecutorMetrics metrics = new ExecutorMetrics(new SimpleMeterRegistry());
        // "exit": a handler with a fatal bug that ends the JVM, with the payload as its status.
        // "stubborn": sleeps for the payload's milliseconds, ignoring interrupts.
        var handlers = HandlerRegistry.of(List.of(new NoopHandler(), new RecordingHandler(ds, schema, node),
                Handlers.of("exit", job -> System.exit(Integer.parseInt(job.payload()))),
                Handlers.of("stubborn", job -> {
                    System.out.println("STUBBORN " + job.id());
                    long end = System.nanoTime() + Long.parseLong(job.payload()) * 1_000_000L;
                    while (System.nanoTime() < end) {
                        try {
                            Thread.sleep(Math.max(1, (end - System.nanoTime()) / 1_000_000L));
                        } catch (InterruptedException ignored) {
                            // as a handler that swallows interrupts
                        }
                    }
                })));
        ExecutorEngine engine = new ExecutorEngine(settings, engineDs, handlers, metrics);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            engine.close();
            System.out.println("STATS optimisticLockFailures=" + (long) metrics.optimisticLockFailureCount());
            System.out.flush();
            engineDs.close();
            ds.close();
        }));
        engine.start();
        System.out.println("READY " + engine.owner());
        System.out.flush();
        Thread.currentThread().join();
    }

    /**
     * Outside Quarkus, Quarkus' LogManager configurator only buffers records until the
     * application starts, which here it never does: give it a console handler, so a node's log
     * reaches its process output (tests read it).
     */
    static void logToConsole() {
        var root = java.util.logging.Logger.getLogger("");
        root.addHandler(new org.jboss.logmanager.handlers.ConsoleHandler(
                org.jboss.logmanager.handlers.ConsoleHandler.Target.SYSTEM_OUT,
                new org.jboss.logmanager.formatters.PatternFormatter("%d{HH:mm:ss,SSS} %-5p [%c{1}] %s%e%n")));
        root.setLevel(java.util.logging.Level.INFO);
    }
}
