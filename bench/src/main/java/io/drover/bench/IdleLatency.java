package io.drover.bench;

import io.drover.bench.core.BenchResult;
import io.agroal.api.AgroalDataSource;
import io.drover.executor.acquire.LockMode;
import io.drover.executor.bench.Database;
import io.drover.executor.bench.JobKind;
import io.drover.bench.core.Prometheus;
import io.drover.executor.bench.Scenario;
import io.drover.executor.store.Migrations;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The other end of the scale from the drains: single jobs arriving one at a time into an idle
 * fleet of 2 nodes, each one INSERT in its own transaction as an application would write it,
 * and how long each waits to start. With NOTIFY (as shipped) an insert wakes the nodes at
 * its commit; without it (the trigger disabled for the run) they find the job at their next
 * poll, so the difference is what the trigger buys.
 */
final class IdleLatency {
    static final String SCHEMA = "drover_bench_idle";
    static final int NODES = 2;
    static final String DELAY = "drover_job_start_delay_seconds";

    /** One rate in one configuration; latencies in ms, enqueue (due) to start. */
    record Result(String lockMode, boolean notifyOn, double perSecond, double seconds, long jobs, double p50Ms,
                  double p99Ms, double meanMs, double insertMeanMs, double insertMaxMs) {
    }

    /** The arrival rates and how long each runs: long enough for a p99 of a few dozen jobs or more. */
    record Rate(double perSecond, double seconds) {
    }

    private IdleLatency() {
    }

    static List<Rate> rates(boolean quick) {
        return quick ? List.of(new Rate(1, 10), new Rate(10, 5), new Rate(100, 3))
                : List.of(new Rate(1, 30), new Rate(10, 20), new Rate(100, 10));
    }

    static List<Result> run(AgroalDataSource ds, Database db, Path jar, boolean quick) throws Exception {
        List<Result> results = new ArrayList<>();
        for (LockMode mode : LockMode.values()) {
            for (boolean notify : List.of(true, false)) {
                results.addAll(configuration(ds, db, jar, mode, notify, quick));
            }
        }
        return results;
    }

    /** Fresh schema and nodes for one lock mode with NOTIFY on or off, then every rate in turn. */
    private static List<Result> configuration(AgroalDataSource ds, Database db, Path jar, LockMode mode, boolean notify,
                                              boolean quick) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("drop schema if exists " + SCHEMA + " cascade");
            // The drains before leave dirty pages; flushed now, not by a checkpoint in the middle of
            // the measured arrivals, where it slowed the producer's commits (one took over a second).
            s.execute("checkpoint");
        }
        Migrations.migrate(ds, SCHEMA);
        if (!notify) {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("alter table " + SCHEMA + ".job disable trigger job_inserted_notify");
            }
        }
        String label = "idle latency " + mode + " NOTIFY " + (notify ? "on" : "off");
        System.out.println("== " + label + ": starting " + NODES + " executor nodes ...");
        Scenario scenario = new Scenario(JobKind.parse("noop"), 0, NODES, mode, 256, BenchMatrix.THREADS,
                BenchMatrix.QUEUE, Duration.ofMinutes(1));
        List<Result> results = new ArrayList<>();
        try (LocalFleet fleet = LocalFleet.start(jar, db, SCHEMA, scenario, Path.of("target/bench-logs"));
             Connection producer = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password())) {
            // Not counted: the first jobs load and compile the nodes' start path.
            arrive(ds, producer, fleet, new Rate(10, quick ? 1 : 3));
            for (Rate rate : rates(quick)) {
                Result r = arrive(ds, producer, fleet, rate).result(mode, notify, rate);
                System.out.println(line(r));
                results.add(r);
            }
        }
        return results;
    }

    /**
     * @param insertNanos    the producer's insert+commit times, summed
     * @param maxInsertNanos the slowest of them: a job cannot start before its commit, and its
     *                       enqueue-to-start counts from the insert, so a slow commit shows as a slow start
     */
    private record Measured(Prometheus before, Prometheus after, long inserted, double insertNanos, long maxInsertNanos) {
        Result result(LockMode mode, boolean notify, Rate rate) {
            double count = after.sumSince(DELAY + "_count", before);
            return new Result(mode.name(), notify, rate.perSecond(), rate.seconds(), Math.round(count),
                    ms(after.quantileSince(DELAY, 0.50, before)), ms(after.quantileSince(DELAY, 0.99, before)),
                    ms(after.meanSince(DELAY, before)), BenchResult.round(insertNanos / inserted / 1e6, 2),
                    BenchResult.round(maxInsertNanos / 1e6, 1));
        }

        private static double ms(double seconds) {
            return BenchResult.round(seconds * 1000, 1);
        }
    }

    /** Paced single-row inserts (autocommit: one transaction each), then the wait until all ran. */
    private static Measured arrive(AgroalDataSource ds, Connection producer, LocalFleet fleet, Rate rate)
            throws Exception {
        Prometheus before = Prometheus.scrape(fleet.metricsUrls());
        Pacer pacer = new Pacer(rate.perSecond(), rate.seconds());
        long insertNanos = 0;
        long maxInsertNanos = 0;
        producer.setAutoCommit(true);
        // due_at defaults to now(): the database's clock at the insert, which the histogram starts from.
        try (PreparedStatement insert = producer.prepareStatement(
                "insert into " + SCHEMA + ".job (type) values ('noop')")) {
            long start = System.nanoTime();
            for (int i = 0; i < pacer.arrivals(); i++) {
                long wait = pacer.waitNanos(i, System.nanoTime() - start);
                if (wait > 0) {
                    Thread.sleep(Duration.ofNanos(wait));
                }
                long t = System.nanoTime();
                insert.executeUpdate();
                long took = System.nanoTime() - t;
                insertNanos += took;
                maxInsertNanos = Math.max(maxInsertNanos, took);
            }
        }
        awaitEmpty(ds, Duration.ofSeconds(30));
        return new Measured(before, Prometheus.scrape(fleet.metricsUrls()), pacer.arrivals(), insertNanos,
                maxInsertNanos);
    }

    /** The nodes delete a job when it completes, so an empty table means every start was recorded. */
    private static void awaitEmpty(AgroalDataSource ds, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            while (true) {
                try (ResultSet rs = s.executeQuery("select count(*) from " + SCHEMA + ".job")) {
                    rs.next();
                    if (rs.getLong(1) == 0) {
                        return;
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(rs.getLong(1) + " idle-latency jobs not done after " + timeout);
                    }
                }
                Thread.sleep(50);
            }
        }
    }

    static String line(Result r) {
        return String.format("idle latency %s NOTIFY %s, %.0f jobs/s for %.0f s: %d jobs, enqueue-to-start p50 %.1f ms,"
                        + " p99 %.1f ms, mean %.1f ms (insert+commit %.2f ms, slowest %.1f ms)", r.lockMode(),
                r.notifyOn() ? "on" : "off", r.perSecond(), r.seconds(), r.jobs(), r.p50Ms(), r.p99Ms(), r.meanMs(),
                r.insertMeanMs(), r.insertMaxMs());
    }
}
