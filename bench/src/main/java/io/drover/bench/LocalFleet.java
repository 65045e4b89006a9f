package io.drover.bench;

import io.agroal.api.AgroalDataSource;
import io.drover.bench.core.BenchResult;
import io.drover.executor.bench.BenchRun;
import io.drover.executor.bench.CpuMeter;
import io.drover.executor.bench.Database;
import io.drover.executor.bench.Scenario;
import io.drover.executor.store.Migrations;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * N executor nodes on this machine: the packaged service (quarkus-run.jar), each its own
 * process, configured by environment exactly as a pod is. Its logs go to files. Being local,
 * the nodes' CPU time is read from /proc, as is PostgreSQL's when it runs here too.
 */
final class LocalFleet implements AutoCloseable {
    private final List<Process> processes = new ArrayList<>();
    private final List<URI> metrics = new ArrayList<>();

    /**
     * One configuration's figures: the measured drain, and the first drain the same fresh nodes
     * ran before it (null when none was asked for).
     */
    record Measured(BenchResult firstDrain, BenchResult result) {
    }

    /**
     * One run: a fresh schema, N fresh nodes started before the seed, stopped after. The fresh
     * nodes first drain {@code firstDrainJobs} jobs of the same kind (none if 0),
     * and the scenario's drain is measured after it: a node that has run for a while, as in
     * production, where a young JVM's one-off JIT compilation (most of a fresh node's CPU over a
     * drain of seconds, docs/benchmarks/profile.md) is long done. Both drains are reported.
     */
    static Measured measure(AgroalDataSource ds, Database db, String schema, Scenario scenario, int firstDrainJobs,
                            Path executorJar, Path logs, PostgresCpu postgres) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("drop schema if exists " + schema + " cascade");
        }
        Migrations.migrate(ds, schema);
        System.out.println("== " + scenario.label() + ": starting " + scenario.nodes() + " executor nodes ...");
        try (LocalFleet fleet = start(executorJar, db, schema, scenario, logs)) {
            CpuMeter cpu = watcher -> new CpuMeter.Reading(fleet.cpuMicros(), fleet.jitMicros(),
                    postgres.microsExcept(watcher));
            BenchResult first = null;
            if (firstDrainJobs > 0) {
                System.out.println("   first drain, " + firstDrainJobs + " jobs (not the measured one):");
                first = BenchRun.run(ds, schema, scenario.withJobs(firstDrainJobs), fleet.metricsUrls(), cpu,
                        System.out::println);
                System.out.println(first.text());
                System.out.println("   measured drain:");
            }
            return new Measured(first, BenchRun.run(ds, schema, scenario, fleet.metricsUrls(), cpu, System.out::println));
        }
    }

    static LocalFleet start(Path executorJar, Database db, String schema, Scenario s, Path logDir) throws Exception {
        return start(executorJar, db, schema, s, logDir, Map.of());
    }

    /** {@code extraEnv}: settings beyond the scenario's, e.g. DROVER_API_TOKEN to open the HTTP API. */
    static LocalFleet start(Path executorJar, Database db, String schema, Scenario s, Path logDir,
                            Map<String, String> extraEnv) throws Exception {
        LocalFleet fleet = new LocalFleet();
        Files.createDirectories(logDir);
        List<String> command = command(executorJar);
        for (int i = 0; i < s.nodes(); i++) {
            int port = freePort();
            ProcessBuilder pb = new ProcessBuilder(command)
                    .redirectErrorStream(true).redirectOutput(logDir.resolve("node-" + i + ".log").toFile());
            var env = pb.environment();
            env.put("QUARKUS_DATASOURCE_JDBC_URL", db.jdbcUrl());
            env.put("QUARKUS_DATASOURCE_USERNAME", db.user());
            env.put("QUARKUS_DATASOURCE_PASSWORD", db.password());
            env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
            env.put("DROVER_SCHEMA", schema);
            env.put("DROVER_NODENAME", "bench-node-" + i);
            env.put("DROVER_LOCKMODE", s.lockMode().name());
            env.put("DROVER_THREADS", Integer.toString(s.threads()));
            env.put("DROVER_QUEUESIZE", Integer.toString(s.queueSize()));
            env.put("DROVER_ACQUIREPAGESIZE", Integer.toString(s.acquirePageSize()));
            env.putAll(extraEnv);
            fleet.processes.add(pb.start());
            fleet.metrics.add(URI.create("http://127.0.0.1:" + port + "/q/metrics"));
        }
        try {
            fleet.awaitReady(Duration.ofMinutes(2));
        } catch (Exception e) {
            fleet.close();
            throw e;
        }
        return fleet;
    }

    /**
     * The node's command line: the image's JIT directives when the build has them (quarkus-app/jvm/,
     * as tools/build-image.sh passes them), so the nodes measured here run as the image's do; a
     * build from before them runs without.
     */
    static List<String> command(Path executorJar) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-XX:+UseParallelGC"));
        Path directives = executorJar.resolveSibling("jvm/compiler-directives.json");
        if (Files.isRegularFile(directives)) {
            command.addAll(List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:CompilerDirectivesFile=" + directives));
        } else {
            System.out.println("   (no " + directives + ": this build's nodes run without JIT directives)");
        }
        command.addAll(List.of("-jar", executorJar.toString()));
        return command;
    }

    private void awaitReady(Duration timeout) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int i = 0; i < metrics.size(); i++) {
            URI ready = metrics.get(i).resolve("/q/health/ready");
            while (true) {
                if (!processes.get(i).isAlive()) {
                    throw new IllegalStateException("executor node " + i + " exited with " + processes.get(i).exitValue());
                }
                try {
                    if (http.send(HttpRequest.newBuilder(ready).build(), HttpResponse.BodyHandlers.discarding())
                            .statusCode() == 200) {
                        break;
                    }
                } catch (IOException notYet) {
                    // still starting
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("executor node " + i + " not ready after " + timeout);
                }
                Thread.sleep(200);
            }
        }
    }

    /** Node {@code i}'s base URL (its HTTP port). */
    URI baseUrl(int i) {
        return metrics.get(i).resolve("/");
    }

    List<URI> metricsUrls() {
        return metrics;
    }

    /** The nodes' JIT compiler threads' CPU microseconds so far (a part of {@link #cpuMicros}). */
    double jitMicros() {
        return processes.stream().mapToLong(p -> ProcStat.jitMicros(p.pid())).sum();
    }

    /** The nodes' CPU microseconds so far, all threads (JIT and GC included); NaN if one is gone. */
    double cpuMicros() {
        double total = 0;
        for (Process p : processes) {
            total += ProcStat.read(p.pid()).map(ProcStat::cpuMicros).map(Long::doubleValue).orElse(Double.NaN);
        }
        return total;
    }

    /** SIGTERM, as Kubernetes stops pods, then wait for the graceful shutdown. */
    @Override
    public void close() throws InterruptedException {
        processes.forEach(p -> p.toHandle().destroy());
        for (Process p : processes) {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.toHandle().destroyForcibly();
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
