package io.drover.flowable.bench;

import io.drover.bench.core.BenchResult;
import io.drover.bench.core.Commits;
import io.drover.bench.core.Drain;
import io.drover.bench.core.Prometheus;
import io.drover.bench.core.Wal;
import io.quarkus.runtime.configuration.DurationConverter;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code FlowableBench run}: Drover's {@code bench run} for a fleet of Flowable executors (spec.engine
 * Flowable), so both engines are timed the same way on the same database: N instances of a
 * bundled model seeded with their jobs out of reach, all released at once, the drain timed by
 * polling until none is left, the nodes' metrics scraped before and after. Prints the same text
 * and the same JSON document (BenchResult) as Drover's. The in-cluster Job runs it from the
 * Flowable executor image: {@code java -cp '/app/lib/boot/*:/app/lib/main/*:/app/app/*' io.drover.flowable.bench.FlowableBench run ...}
 * (e2e/bench/run-one.sh).
 */
@Command(name = "FlowableBench", mixinStandardHelpOptions = true, subcommands = FlowableBench.Run.class,
        description = "Benchmark a running fleet of Flowable executors")
public final class FlowableBench {

    static final class DurationOption implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String text) {
            try {
                return DurationConverter.parseDuration(text.trim());
            } catch (RuntimeException e) {
                throw new CommandLine.TypeConversionException("'" + text + "' is not a duration (e.g. 600s, 10m)");
            }
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new FlowableBench()).execute(args));
    }

    @Command(name = "run", mixinStandardHelpOptions = true, showDefaultValues = true,
            description = "Seed one scenario into a running Flowable fleet and time the drain.")
    static final class Run implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--jdbc-url", required = true, paramLabel = "URL", description = "the fleet's database")
        String jdbcUrl;
        @Option(names = "--user", defaultValue = "postgres")
        String user;
        @Option(names = "--password", description = "default: $PGPASSWORD, or empty")
        String password;
        @Option(names = "--schema", defaultValue = "drover_bench", description = "the fleet's schema (spec.schema)")
        String schema;
        @Option(names = "--kind", defaultValue = "noop", paramLabel = "noop|sleep:<ms>|timer")
        String kind;
        @Option(names = "--jobs", defaultValue = "20000")
        int jobs;
        // The fleet's settings, for the result's labels (the nodes run what their ExecutorCluster says).
        @Option(names = "--nodes", defaultValue = "1")
        int nodes;
        @Option(names = "--lockMode", defaultValue = "Global", paramLabel = "Global|Optimistic")
        String lockMode;
        @Option(names = "--acquirePageSize", defaultValue = "256")
        int acquirePageSize;
        @Option(names = "--threads", defaultValue = "8")
        int threads;
        @Option(names = "--queueSize", defaultValue = "1024")
        int queueSize;
        @Option(names = "--metrics-urls", defaultValue = "", paramLabel = "URL,...", description = "the nodes' /q/metrics")
        String metricsUrls;
        // The settings' one duration grammar (Quarkus' converter): 600s, 10m, PT10M, or seconds.
        @Option(names = "--timeout", defaultValue = "600s", converter = DurationOption.class)
        Duration timeout;
        @Option(names = "--json", paramLabel = "FILE", description = "write the result JSON to FILE instead of to stdout")
        Path json;

        @Override
        public Integer call() throws Exception {
            BenchKind benchKind;
            try {
                benchKind = BenchKind.parse(kind);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            if (!lockMode.equals("Global") && !lockMode.equals("Optimistic")) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--lockMode must be Global or Optimistic (Flowable has no SkipLocked), got '" + lockMode + "'");
            }
            String pass = password != null ? password : System.getenv().getOrDefault("PGPASSWORD", "");
            List<URI> metrics = Arrays.stream(metricsUrls.split(",")).filter(s -> !s.isBlank()).map(URI::create).toList();
            BenchResult result = run(benchKind, pass, metrics);
            System.out.print(result.text());
            String document = BenchResult.JSON.writeValueAsString(result);
            if (json != null) {
                Files.writeString(json, document);
            } else {
                System.out.println(document);
            }
            return 0;
        }

        private BenchResult run(BenchKind benchKind, String pass, List<URI> metrics) throws Exception {
            var ds = new PGSimpleDataSource();
            ds.setURL(jdbcUrl);
            ds.setUser(user);
            ds.setPassword(pass);
            try (FlowableSeeder seeder = new FlowableSeeder(jdbcUrl, user, pass, schema); Connection c = seeder.connect()) {
                String definition = seeder.definitionId(benchKind);
                int leftover = seeder.release(definition);
                long before = seeder.remaining(c, definition);
                if (leftover > 0 || before > 0) {
                    System.out.printf("%d jobs of %s left by an earlier run (%d were held back by its seeding): waiting for the fleet to drain them%n",
                            before, benchKind.processKey(), leftover);
                    awaitEmpty(seeder, c, definition);
                }
                String vacuumShortfall = seeder.vacuumTables();
                if (vacuumShortfall != null) {
                    System.out.println("The VACUUM of Flowable's tables before the seed fell short: " + vacuumShortfall);
                }
                Prometheus scrapedBefore = metrics.isEmpty() ? Prometheus.empty() : Prometheus.scrape(metrics);
                System.out.println("Seeding " + jobs + " instances of " + benchKind.processKey() + " into the running fleet (" + schema + ") ...");
                seeder.seedLocked(benchKind, definition, jobs, System.out::println);
                String walStart = Wal.position(ds);
                long commitsStart = Commits.next(ds);
                long start = System.nanoTime();
                int released = seeder.release(definition);
                if (released != jobs) {
                    throw new IllegalStateException("released " + released + " seeded jobs, expected " + jobs);
                }
                Drain drain = Drain.watch(start, jobs, timeout, () -> seeder.remaining(c, definition),
                        (done, total, rate, elapsed) -> System.out.printf("%,9d/%,d  %,8.0f jobs/s  %5.1f s%n",
                                done, total, rate, elapsed));
                long end = drain.endNanos();
                long remaining = drain.remaining();
                List<Double> intervals = drain.intervals();
                double walBytes = Wal.bytesSince(ds, walStart);
                long commits = Commits.next(ds) - commitsStart;
                Prometheus after = metrics.isEmpty() ? Prometheus.empty() : Prometheus.scrape(metrics);
                double seconds = (end - start) / 1e9;
                long drained = jobs - remaining;
                double rate = drained / seconds;
                double theoretical = benchKind.theoreticalMaxPerSecond(nodes, threads);
                double executorMicros = after.sumSince(Prometheus.PROCESS_CPU_NANOS, scrapedBefore, Double.NaN) / 1000;
                return new BenchResult("Flowable " + benchKind.name() + " " + lockMode + " page=" + acquirePageSize
                        + " nodes=" + nodes + " threads=" + threads, benchKind.name(), lockMode, acquirePageSize, nodes, threads,
                        queueSize, jobs, drained, remaining > 0, BenchResult.round(seconds, 2), BenchResult.round(rate, 1), intervals,
                        // Flowable's executor has no due-to-start timer nor global-lock hooks
                        Double.NaN, Double.NaN,
                        BenchResult.round(after.sumSince("drover_acquisition_jobs_sum", scrapedBefore)
                                / after.sumSince("drover_acquisition_jobs_count", scrapedBefore), 1),
                        after.sumSince("drover_optimistic_lock_failures_total", scrapedBefore), Double.NaN, Double.NaN,
                        theoretical, Double.isNaN(theoretical) ? Double.NaN : BenchResult.round(100 * rate / theoretical, 1),
                        BenchResult.round(BenchResult.perJob(walBytes, drained), 0),
                        BenchResult.round(BenchResult.perJob(executorMicros, drained), 1), Double.NaN, Double.NaN,
                        BenchResult.round(BenchResult.perJob(commits, drained), 4), Double.NaN);
            }
        }

        private void awaitEmpty(FlowableSeeder seeder, Connection c, String definition) throws Exception {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (seeder.remaining(c, definition) > 0) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the fleet did not drain the earlier run's jobs within " + timeout);
                }
                Thread.sleep(500);
            }
        }
    }
}
