package io.drover.executor.demo;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.acquire.LockMode;
import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.engine.ExecutorEngine;
import io.drover.executor.handler.HandlerRegistry;
import io.drover.executor.handler.JobContext;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.handler.NoopHandler;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.JobEnqueuer;
import io.drover.executor.store.JobEnqueuer.NewJob;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code make run}: two executor nodes on an embedded PostgreSQL, fed a stream of demo jobs
 * (no-ops, 1-5 ms jobs, timers a few seconds out, and the odd job that fails and is retried),
 * with a live throughput line. Options: --seconds=N --rate=JOBS_PER_S --lockMode=MODE --nodes=N.
 */
public final class LocalDemo {
    public static void main(String[] args) throws Exception {
        int seconds = intArg(args, "seconds", 30);
        int rate = intArg(args, "rate", 2000);
        int nodeCount = intArg(args, "nodes", 2);
        LockMode mode = LockMode.parse(stringArg(args, "lockMode", "SkipLocked"));

        System.out.println("Starting embedded PostgreSQL ...");
        AgroalDataSource db = TestDatabase.pool(20);
        String schema = TestDatabase.freshSchema(db);
        List<ExecutorEngine> nodes = new ArrayList<>();
        List<ExecutorMetrics> metrics = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            ExecutorMetrics m = new ExecutorMetrics(new SimpleMeterRegistry());
            ExecutorSettings settings = ExecutorSettings.builder().nodeName("demo-" + i).schema(schema)
                    .lockMode(mode).retryBackoff(Duration.ofMillis(500)).build();
            ExecutorEngine node = new ExecutorEngine(settings, db,
                    HandlerRegistry.of(List.of(new NoopHandler(), new WorkHandler())), m);
            node.start();
            nodes.add(node);
            metrics.add(m);
        }
        System.out.printf("%d nodes, lockMode=%s, threads=%d, queueSize=%d, acquirePageSize=%d; feeding %d jobs/s for %d s%n",
                nodeCount, mode, nodes.get(0).settings().threads(), nodes.get(0).settings().queueSize(),
                nodes.get(0).settings().acquirePageSize(), rate, seconds);

        JobEnqueuer enqueuer = new JobEnqueuer(db, new Tables(schema));
        Jobs jobs = new Jobs(db, schema);
        long enqueued = 0;
        double lastDone = 0;
        for (int s = 1; s <= seconds; s++) {
            long tickEnd = System.nanoTime() + 1_000_000_000L;
            enqueuer.enqueue(demoJobs(rate));
            enqueued += rate;
            Thread.sleep(Math.max(0, (tickEnd - System.nanoTime()) / 1_000_000));
            double done = executed(metrics);
            System.out.printf("t=%3ds  enqueued %7d  executed %7.0f  (%5.0f jobs/s)  backlog %6d  timers %5d  retries %4.0f  dead letters %d%n",
                    s, enqueued, done, done - lastDone,
                    jobs.count("select count(*) from {s}.job where due_at <= now()"),
                    jobs.count("select count(*) from {s}.job where due_at > now()"),
                    retried(metrics), jobs.deadLetters());
            lastDone = done;
        }
        System.out.println("Stopping nodes gracefully ...");
        nodes.forEach(ExecutorEngine::close);
        db.close();
        System.out.println("Done. Tests: make test. Design: docs/engine.md");
        System.exit(0);
    }

    private static List<NewJob> demoJobs(int count) {
        List<NewJob> batch = new ArrayList<>(count);
        ThreadLocalRandom r = ThreadLocalRandom.current();
        for (int i = 0; i < count; i++) {
            int dice = r.nextInt(100);
            if (dice < 60) {
                batch.add(NewJob.now(NoopHandler.TYPE, null, 3));
            } else if (dice < 90) {
                batch.add(NewJob.now(WorkHandler.TYPE, Integer.toString(1 + r.nextInt(5)), 3));
            } else if (dice < 99) {
                batch.add(new NewJob(NoopHandler.TYPE, null, Instant.now().plusSeconds(1 + r.nextInt(5)), 3, null));
            } else {
                batch.add(NewJob.now(WorkHandler.TYPE, "fail", 2));
            }
        }
        return batch;
    }

    private static double executed(List<ExecutorMetrics> metrics) {
        return metrics.stream().mapToDouble(m -> m.registry().find("drover.jobs.executed")
                .counters().stream().mapToDouble(c -> c.count()).sum()).sum();
    }

    private static double retried(List<ExecutorMetrics> metrics) {
        return metrics.stream().mapToDouble(m -> m.registry().find("drover.jobs.executed").tag("outcome", "retried")
                .counters().stream().mapToDouble(c -> c.count()).sum()).sum();
    }

    /** Sleeps the payload's milliseconds; payload "fail" fails (and is retried, then dead-lettered). */
    static final class WorkHandler implements JobHandler {
        static final String TYPE = "demo-work";

        @Override
        public String type() {
            return TYPE;
        }

        @Override
        public void execute(JobContext job) throws Exception {
            if ("fail".equals(job.payload())) {
                throw new IllegalStateException("demo failure");
            }
            Thread.sleep(Long.parseLong(job.payload()));
        }
    }

    private static int intArg(String[] args, String name, int def) {
        return Integer.parseInt(stringArg(args, name, Integer.toString(def)));
    }

    private static String stringArg(String[] args, String name, String def) {
        for (String a : args) {
            if (a.startsWith("--" + name + "=")) {
                return a.substring(name.length() + 3);
            }
        }
        return def;
    }
}
