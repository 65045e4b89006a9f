package io.drover.executor.bench;

import io.drover.bench.core.BenchResult;
import io.drover.bench.core.Prometheus;
import io.drover.bench.core.Commits;
import io.drover.bench.core.Drain;
import io.drover.bench.core.Wal;
import javax.sql.DataSource;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.function.Consumer;

/**
 * Seeds a scenario's jobs into a running fleet and watches the drain, Flowable-style: on a
 * vacuumed job table ({@link Seeder#vacuum}), the jobs become visible all at once (one COPY
 * transaction), then the remaining count is polled until it reaches zero or the timeout. The nodes' own metrics, scraped before and after, give the
 * acquisition figures and the due-to-start delay percentiles.
 */
public final class BenchRun {
    private BenchRun() {
    }

    /**
     * @param cpu the nodes' and the database's CPU, read as the drain starts and ends; with
     *            {@link CpuMeter#NONE}, the nodes' CPU comes from their metrics
     */
    public static BenchResult run(DataSource dataSource, String schema, Scenario s, List<URI> metricsUrls,
                                  CpuMeter cpu, Consumer<String> progress) throws Exception {
        String vacuumShortfall = Seeder.vacuum(dataSource, schema);
        if (vacuumShortfall != null) {
            progress.accept("The job table's VACUUM before the seed fell short: " + vacuumShortfall);
        }
        Prometheus before = metricsUrls.isEmpty() ? Prometheus.empty() : Prometheus.scrape(metricsUrls);
        // The drain is watched on a connection of its own, opened before the seed: the database
        // CPU leaves out its backend, so that it counts the fleet's work only, as the floor's
        // counts pgbench's (which has no such watcher).
        try (Connection c = dataSource.getConnection()) {
            long watcher = backendPid(c);
            Seeder.Seeded seeded = Seeder.seed(dataSource, schema, s.kind(), s.jobs());
            // The nodes start on the seed's commit: the clock starts first, the cost readings after.
            long start = System.nanoTime();
            CpuMeter.Reading cpuStart = cpu.read(watcher);
            String walStart = Wal.position(dataSource);
            long commitsStart = Commits.next(dataSource);
            long total = seeded.count();
            Drain drain;
            try (PreparedStatement count = c.prepareStatement(
                    "select count(*) from " + schema + ".job where id > ? and id <= ?")) {
                count.setLong(1, seeded.afterId());
                count.setLong(2, seeded.lastId());
                drain = Drain.watch(start, total, s.timeout(), () -> {
                    try (ResultSet rs = count.executeQuery()) {
                        rs.next();
                        return rs.getLong(1);
                    }
                }, (done, all, rate, elapsed) -> progress.accept(bar(done, all, rate, elapsed)));
            }
            CpuMeter.Reading cpuUsed = cpu.read(watcher).since(cpuStart);
            long end = drain.endNanos();
            long remaining = drain.remaining();
            List<Double> intervals = drain.intervals();
            double walBytes = Wal.bytesSince(dataSource, walStart);
            long commits = Commits.next(dataSource) - commitsStart;
            Prometheus after = metricsUrls.isEmpty() ? Prometheus.empty() : Prometheus.scrape(metricsUrls);
            double executorMicros = Double.isNaN(cpuUsed.executorMicros())
                    ? after.sumSince(Prometheus.PROCESS_CPU_NANOS, before, Double.NaN) / 1000 : cpuUsed.executorMicros();
            double seconds = (end - start) / 1e9;
            long drained = total - remaining;
            double databaseCpuPerJob = BenchResult.perJob(cpuUsed.databaseMicros(), drained);
            double rate = drained / seconds;
            double theoretical = s.theoreticalMaxPerSecond();
            return new BenchResult(s.label(), s.kind().name(), s.lockMode().name(), s.acquirePageSize(), s.nodes(),
                    s.threads(), s.queueSize(), total, drained, remaining > 0, BenchResult.round(seconds, 2), BenchResult.round(rate, 1), intervals,
                    BenchResult.round(after.quantileSince("drover_job_start_delay_seconds", 0.50, before) * 1000, 1),
                    BenchResult.round(after.quantileSince("drover_job_start_delay_seconds", 0.99, before) * 1000, 1),
                    BenchResult.round(after.sumSince("drover_acquisition_jobs_sum", before)
                            / after.sumSince("drover_acquisition_jobs_count", before), 1),
                    after.sumSince("drover_optimistic_lock_failures_total", before),
                    BenchResult.round(after.meanSince("drover_global_lock_wait_seconds", before) * 1000, 3),
                    after.sumSince("drover_global_lock_timeouts_total", before),
                    theoretical, Double.isNaN(theoretical) ? Double.NaN : BenchResult.round(100 * rate / theoretical, 1),
                    BenchResult.round(BenchResult.perJob(walBytes, drained), 0),
                    BenchResult.round(BenchResult.perJob(executorMicros, drained), 1),
                    BenchResult.round(BenchResult.perJob(cpuUsed.executorJitMicros(), drained), 1), BenchResult.round(databaseCpuPerJob, 1),
                    BenchResult.round(BenchResult.perJob(commits, drained), 4),
                    BenchResult.round(BenchResult.perDatabaseCoreSecond(databaseCpuPerJob), 0));
        }
    }

    private static long backendPid(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static String bar(long done, long total, double rate, double elapsed) {
        int width = 30;
        int filled = total == 0 ? width : (int) (width * done / total);
        return String.format("[%s%s] %3d%%  %,9d/%,d  %,8.0f jobs/s  %5.1f s", "#".repeat(filled),
                ".".repeat(width - filled), total == 0 ? 100 : 100 * done / total, done, total, rate, elapsed);
    }
}
