package io.drover.bench;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.acquire.LockMode;
import io.drover.bench.core.BenchResult;
import io.drover.executor.bench.Database;
import io.drover.executor.bench.JobKind;
import io.drover.executor.bench.Scenario;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.Migrations;
import io.drover.executor.store.Tables;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The enqueue path: how fast producers can write jobs, and what each costs the database, through
 * the executor's HTTP batch API, plain SQL INSERTs and COPY, with the NOTIFY trigger on and off.
 * NOTIFY takes a database-wide lock from its commit until the commit's WAL flush is done, so
 * committing producers queue behind each other instead of sharing a flush; this shows what that
 * costs as producers grow. The jobs are due in a day, so no node takes them during the run:
 * only the writing is measured.
 */
final class EnqueueBench {
    static final String SCHEMA = "drover_bench_enqueue";
    static final String TOKEN = "drover-bench-enqueue-token";
    static final int COPY_ROWS = 10_000;

    /** One configuration: rows committed over a fixed time by N producers, each looping. */
    record Result(String path, boolean notifyOn, int producers, int batch, double seconds, long jobs,
                  double jobsPerSecond, double databaseCpuMicrosPerJob, double executorCpuMicrosPerJob) {
    }

    /** One producer's unit of work (a transaction or a request); returns the jobs it committed. */
    interface Producer extends AutoCloseable {
        int send() throws Exception;
    }

    /** A source of producers; a producer's connection is opened before the clock starts. */
    interface Producers {
        Producer open() throws Exception;
    }

    private EnqueueBench() {
    }

    static List<Integer> producerCounts(boolean quick) {
        return quick ? List.of(1, 16) : List.of(1, 4, 16);
    }

    static List<Result> run(AgroalDataSource ds, Database db, PostgresCpu postgres, Path jar, boolean quick)
            throws Exception {
        Duration each = Duration.ofSeconds(quick ? 2 : 5);
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("drop schema if exists " + SCHEMA + " cascade");
        }
        Migrations.migrate(ds, SCHEMA);
        // In a day: written, never taken, so the nodes' work does not mix with the producers'.
        Instant due = Instant.now().plus(Duration.ofDays(1)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        String insert = new JobSql(new Tables(SCHEMA)).insertJob();
        List<Result> results = new ArrayList<>();
        for (boolean notify : List.of(true, false)) {
            trigger(ds, notify);
            for (int batch : List.of(1, 100)) {
                for (int n : producerCounts(quick)) {
                    results.add(print(measure(ds, postgres, null, "SQL INSERT", notify, n, batch, each,
                            () -> SqlProducer.insert(connect(db), insert, batch, due))));
                }
            }
        }
        trigger(ds, true);
        results.add(print(measure(ds, postgres, null, "COPY", true, 1, COPY_ROWS, each,
                () -> SqlProducer.copy(connect(db), SCHEMA, COPY_ROWS, due))));
        results.addAll(http(ds, db, postgres, jar, quick, each, due));
        trigger(ds, true);
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("drop schema " + SCHEMA + " cascade");
        }
        return results;
    }

    /** The API on one node (it also runs its idle acquisition, woken by each NOTIFY, as in production). */
    private static List<Result> http(AgroalDataSource ds, Database db, PostgresCpu postgres, Path jar, boolean quick,
                                     Duration each, Instant due) throws Exception {
        List<Result> results = new ArrayList<>();
        Scenario one = new Scenario(JobKind.parse("noop"), 0, 1, LockMode.SkipLocked, 256, BenchMatrix.THREADS,
                BenchMatrix.QUEUE, Duration.ofMinutes(1));
        System.out.println("== enqueue through the HTTP API: starting 1 executor node ...");
        try (LocalFleet fleet = LocalFleet.start(jar, db, SCHEMA, one, Path.of("target/bench-logs"),
                Map.of("DROVER_API_TOKEN", TOKEN))) {
            var batchUrl = fleet.baseUrl(0).resolve("/api/v1/jobs/batch");
            // Not counted: the first requests load and compile the API's path. A first quick run warmed up
            // with ~70 requests and measured single-job requests at 5.7 ms of node CPU each: the JIT at work.
            measure(ds, postgres, fleet, "warm-up", true, 16, 1, Duration.ofSeconds(quick ? 4 : 8),
                    () -> new HttpProducer(batchUrl, TOKEN, 1, due));
            measure(ds, postgres, fleet, "warm-up", true, 4, 100, Duration.ofSeconds(quick ? 1 : 3),
                    () -> new HttpProducer(batchUrl, TOKEN, 100, due));
            for (boolean notify : List.of(true, false)) {
                trigger(ds, notify);
                for (int batch : List.of(1, 100)) {
                    for (int n : producerCounts(quick)) {
                        results.add(print(measure(ds, postgres, fleet, "HTTP batch API", notify, n, batch, each,
                                () -> new HttpProducer(batchUrl, TOKEN, batch, due))));
                    }
                }
            }
        }
        return results;
    }

    /** N producers looping for {@code duration} on an emptied table; the database's CPU over the same span. */
    static Result measure(AgroalDataSource ds, PostgresCpu postgres, LocalFleet fleet, String path, boolean notify,
                          int n, int batch, Duration duration, Producers producers) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("truncate " + SCHEMA + ".job");
        }
        List<Producer> opened = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(n);
        try {
            for (int i = 0; i < n; i++) {
                opened.add(producers.open());
            }
            CountDownLatch go = new CountDownLatch(1);
            AtomicLong deadline = new AtomicLong();
            List<Future<Long>> counts = new ArrayList<>();
            for (Producer p : opened) {
                Callable<Long> loop = () -> {
                    go.await();
                    long jobs = 0;
                    while (System.nanoTime() < deadline.get()) {
                        jobs += p.send();
                    }
                    return jobs;
                };
                counts.add(threads.submit(loop));
            }
            double dbStart = postgres.micros();
            double nodesStart = fleet == null ? Double.NaN : fleet.cpuMicros();
            long start = System.nanoTime();
            deadline.set(start + duration.toNanos());
            go.countDown();
            long jobs = 0;
            for (Future<Long> f : counts) {
                jobs += f.get();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            double dbCpu = postgres.micros() - dbStart;
            double nodesCpu = fleet == null ? Double.NaN : fleet.cpuMicros() - nodesStart;
            return new Result(path, notify, n, batch, BenchResult.round(seconds, 2), jobs,
                    BenchResult.round(jobs / seconds, 0), BenchResult.round(BenchResult.perJob(dbCpu, jobs), 1),
                    BenchResult.round(BenchResult.perJob(nodesCpu, jobs), 1));
        } finally {
            threads.shutdownNow();
            for (Producer p : opened) {
                p.close();
            }
        }
    }

    private static void trigger(AgroalDataSource ds, boolean on) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("alter table " + SCHEMA + ".job " + (on ? "enable" : "disable") + " trigger job_inserted_notify");
        }
    }

    private static Connection connect(Database db) throws Exception {
        return DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
    }

    private static Result print(Result r) {
        System.out.println(line(r));
        return r;
    }

    static String line(Result r) {
        return String.format("enqueue %s NOTIFY %s, %d producers, %d rows/transaction: %,d jobs in %.2f s = %,.0f jobs/s;"
                        + " database CPU %.1f µs/job%s", r.path(), r.notifyOn() ? "on" : "off", r.producers(), r.batch(),
                r.jobs(), r.seconds(), r.jobsPerSecond(), r.databaseCpuMicrosPerJob(),
                Double.isNaN(r.executorCpuMicrosPerJob()) ? ""
                        : String.format(", executor CPU %.1f µs/job", r.executorCpuMicrosPerJob()));
    }
}
