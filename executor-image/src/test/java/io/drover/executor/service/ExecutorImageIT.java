package io.drover.executor.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OCI archive built by `make image`: its metadata, its contents, and the service running
 * from its root filesystem (chroot, as the image's user) against a real PostgreSQL.
 * Run by `make test` / `make image-test`, which build the archive first.
 */
class ExecutorImageIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Path layout;
    private static AgroalDataSource db;

    @BeforeAll
    static void unpack() throws Exception {
        String archive = System.getProperty("it.image.archive");
        assertThat(archive).as("system property it.image.archive (run via make image-test)").isNotBlank();
        assertThat(new File(archive)).as("image archive").exists();
        layout = Files.createTempDirectory("drover-image");
        run("tar", "-xf", archive, "-C", layout.toString());
        db = TestDatabase.sharedPool();
    }

    @AfterAll
    static void cleanUp() throws Exception {
        run("rm", "-rf", layout.toString());
    }

    private static JsonNode blob(String digest) throws Exception {
        return JSON.readTree(layout.resolve("blobs/sha256/" + digest.substring("sha256:".length())).toFile());
    }

    private static JsonNode manifest() throws Exception {
        JsonNode index = JSON.readTree(layout.resolve("index.json").toFile());
        assertThat(index.at("/manifests/0/annotations/org.opencontainers.image.ref.name").asText())
                .as("the reference containerd will import it as").isEqualTo("localhost/drover-executor:0.1.0");
        return blob(index.at("/manifests/0/digest").asText());
    }

    @Test
    void entrypointRunsTheServiceAsANonRootUser() throws Exception {
        JsonNode config = blob(manifest().at("/config/digest").asText()).get("config");
        List<String> entrypoint = new ArrayList<>();
        config.get("Entrypoint").forEach(n -> entrypoint.add(n.asText()));
        assertThat(entrypoint).startsWith("/opt/java/bin/java").endsWith("-jar", "/app/quarkus-run.jar");
        assertThat(config.get("User").asText()).isEqualTo("10001:10001");
        assertThat(config.get("ExposedPorts").has("8080/tcp")).isTrue();
    }

    @Test
    void containsTheRuntimeAndTheAppButNoShell() throws Exception {
        Path rootfs = rootfs();
        assertThat(rootfs.resolve("opt/java/bin/java")).isExecutable();
        assertThat(rootfs.resolve("app/quarkus-run.jar")).exists();
        assertThat(rootfs.resolve("bin/sh")).doesNotExist();
        assertThat(rootfs.resolve("bin/bash")).doesNotExist();
        assertThat(rootfs.resolve("usr/bin/sh")).doesNotExist();
    }

    @Test
    void theImageRunsTheExecutorAgainstPostgres() throws Exception {
        Path rootfs = rootfs();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path log = Files.createTempFile("drover-image", ".log");
        // A container runtime mounts /proc; the JVM launcher needs it (its RPATH is $ORIGIN-relative).
        run("mount", "--bind", "/proc", rootfs.resolve("proc").toString());
        ProcessBuilder pb = new ProcessBuilder("/usr/sbin/chroot", "--userspec=10001:10001", rootfs.toString(),
                "/opt/java/bin/java", "-Xmx256m", "-jar", "/app/quarkus-run.jar")
                .redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().clear();
        pb.environment().put("JAVA_HOME", "/opt/java");
        pb.environment().put("QUARKUS_DATASOURCE_JDBC_URL", TestDatabase.jdbcUrl());
        pb.environment().put("QUARKUS_DATASOURCE_USERNAME", "postgres");
        pb.environment().put("QUARKUS_DATASOURCE_PASSWORD", "postgres");
        pb.environment().put("QUARKUS_HTTP_PORT", Integer.toString(port));
        pb.environment().put("DROVER_SCHEMA", "image_it");
        pb.environment().put("DROVER_NODENAME", "image-node");
        pb.environment().put("DROVER_API_TOKEN", "t");
        Process p = pb.start();
        HttpClient http = HttpClient.newHttpClient();
        URI base = URI.create("http://127.0.0.1:" + port);
        try {
            Jobs.await("service in the image ready", Duration.ofSeconds(120), () -> {
                if (!p.isAlive()) {
                    throw new AssertionError("the service exited with " + p.exitValue());
                }
                try {
                    return http.send(HttpRequest.newBuilder(base.resolve("/q/health/ready")).build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
                } catch (Exception e) {
                    return false;
                }
            });
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.resolve("/api/v1/jobs/batch"))
                    .header("Authorization", "Bearer t").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"jobs\":[{\"type\":\"noop\"},{\"type\":\"sleep\",\"payload\":20}]}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            Jobs jobs = new Jobs(db, "image_it");
            Jobs.await("jobs executed by the image", Duration.ofSeconds(60), () -> jobs.jobsLeft() == 0);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nservice output:\n" + Files.readString(log), e);
        } finally {
            p.toHandle().destroy();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            run("umount", "-l", rootfs.resolve("proc").toString());
        }
        assertThat(Files.readString(log)).contains("Drover node image-node:").contains("stopped");
    }

    private static Path rootfs;

    /** The image's layers unpacked in order into one root filesystem (once per test class). */
    private static synchronized Path rootfs() throws Exception {
        if (rootfs == null) {
            rootfs = layout.resolve("rootfs");
            Files.createDirectories(rootfs);
            for (JsonNode layer : manifest().get("layers")) {
                String digest = layer.get("digest").asText().substring("sha256:".length());
                run("tar", "-xzf", layout.resolve("blobs/sha256/" + digest).toString(), "-C", rootfs.toString());
            }
        }
        return rootfs;
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).inheritIO().start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command)).isZero();
    }
}
