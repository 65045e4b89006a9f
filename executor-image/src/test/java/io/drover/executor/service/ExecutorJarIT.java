package io.drover.executor.service;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The packaged service (quarkus-run.jar), configured by environment as a container would be. */
class ExecutorJarIT {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private final HttpClient http = HttpClient.newHttpClient();

    private static Process launch(Map<String, String> env, Path log) throws Exception {
        String jar = System.getProperty("it.executor.jar");
        assertThat(new File(jar)).as("packaged service").exists();
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-jar", jar).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("QUARKUS_DATASOURCE_JDBC_URL", TestDatabase.jdbcUrl());
        pb.environment().put("QUARKUS_DATASOURCE_USERNAME", "postgres");
        pb.environment().put("QUARKUS_DATASOURCE_PASSWORD", "postgres");
        pb.environment().putAll(env);
        return pb.start();
    }

    @Test
    void badSettingsStopStartupWithAMessageNamingThem() throws Exception {
        Path log = Files.createTempFile("drover-bad-config", ".log");
        Process p = launch(Map.of("DROVER_THREADS", "0", "DROVER_LOCKMODE", "Pessimistic", "DROVER_SCHEMA", "jar_bad",
                "QUARKUS_HTTP_PORT", Integer.toString(freePort())), log);
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("startup gave up").isTrue();
        String output = Files.readString(log);
        assertThat(p.exitValue()).as("exit code; output:\n" + output).isNotZero();
        assertThat(output).contains("lockMode must be one of Global, Optimistic, SkipLocked, got 'Pessimistic'")
                .contains("threads must be at least 1, got 0");
    }

    @Test
    void runsJobsFromTheApiAndStopsGracefullyOnSigterm() throws Exception {
        int port = freePort();
        Path log = Files.createTempFile("drover-jar", ".log");
        Map<String, String> env = new HashMap<>(Map.of("QUARKUS_HTTP_PORT", Integer.toString(port),
                "DROVER_SCHEMA", "jar_it", "DROVER_NODENAME", "jar-node", "DROVER_LOCKMODE", "Global",
                "DROVER_THREADS", "4", "DROVER_API_TOKEN", "t0ken", "QUARKUS_LOG_CONSOLE_JSON_ENABLED", "true"));
        Process p = launch(env, log);
        try {
            URI base = URI.create("http://127.0.0.1:" + port);
            Jobs.await("service ready", Duration.ofSeconds(90), () -> status(base.resolve("/q/health/ready")) == 200);
            String batch = IntStream.range(0, 500).mapToObj(i -> "{\"type\":\"noop\"}")
                    .collect(Collectors.joining(",", "{\"jobs\":[", "]}"));
            HttpResponse<String> created = http.send(HttpRequest.newBuilder(base.resolve("/api/v1/jobs/batch"))
                    .header("Authorization", "Bearer t0ken").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(batch)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            Jobs jobs = new Jobs(db, "jar_it");
            Jobs.await("jobs executed", Duration.ofSeconds(60), () -> jobs.jobsLeft() == 0);
        } finally {
            p.toHandle().destroy(); // SIGTERM, as the kubelet sends
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("stopped within the grace period").isTrue();
        }
        String output = Files.readString(log);
        assertThat(output).as("JSON log lines").contains("\"message\":\"Drover node jar-node:");
        assertThat(output).contains("stopped");
    }

    private int status(URI uri) {
        try {
            return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
