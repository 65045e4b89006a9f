package io.drover.executor.service;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import io.drover.testing.image.OciImage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OCI archive built by `make image`: its metadata, its contents, and the service running
 * from its root filesystem (chroot, as the image's user) against a real PostgreSQL.
 * Run by `make test` / `make image-test`, which build the archive first.
 */
class ExecutorImageIT {
    private static OciImage image;
    private static AgroalDataSource db;

    @BeforeAll
    static void unpack() throws Exception {
        image = OciImage.fromProperty("it.image.archive");
        db = TestDatabase.sharedPool();
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (image != null) {
            image.close();
        }
    }

    @Test
    void entrypointRunsTheServiceAsANonRootUser() throws Exception {
        assertThat(image.referenceName()).as("the reference containerd will import it as")
                .isEqualTo("localhost/drover-executor:0.1.0");
        assertThat(image.entrypoint()).startsWith("/opt/java/bin/java").endsWith("-jar", "/app/quarkus-run.jar")
                .as("the JIT directives the local benchmark measured (executor-image/src/main/jvm)")
                .contains("-XX:+UnlockDiagnosticVMOptions", "-XX:CompilerDirectivesFile=/app/jvm/compiler-directives.json");
        assertThat(image.config().get("User").asText()).isEqualTo("10001:10001");
        assertThat(image.config().get("ExposedPorts").has("8080/tcp")).isTrue();
    }

    @Test
    void containsTheRuntimeAndTheAppButNoShell() throws Exception {
        Path rootfs = image.rootfs();
        assertThat(rootfs.resolve("opt/java/bin/java")).isExecutable();
        assertThat(rootfs.resolve("app/quarkus-run.jar")).exists();
        assertThat(rootfs.resolve("app/jvm/compiler-directives.json")).isRegularFile();
        assertThat(rootfs.resolve("bin/sh")).doesNotExist();
        assertThat(rootfs.resolve("bin/bash")).doesNotExist();
        assertThat(rootfs.resolve("usr/bin/sh")).doesNotExist();
        // The image's user (10001) reads the application and cannot rewrite it.
        for (Path p : List.of(rootfs.resolve("app"), rootfs.resolve("app/quarkus-run.jar"), rootfs.resolve("app/lib"))) {
            assertThat(Files.getAttribute(p, "unix:uid")).as(p + " owner").isEqualTo(0);
            assertThat(Files.getPosixFilePermissions(p)).as(p + " permissions")
                    .contains(PosixFilePermission.OTHERS_READ).doesNotContain(PosixFilePermission.OTHERS_WRITE,
                            PosixFilePermission.GROUP_WRITE);
        }
    }

    @Test
    void theImageRunsTheExecutorAgainstPostgres() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path log = Files.createTempFile("drover-image", ".log");
        Process p = image.start(Map.of(
                "JAVA_HOME", "/opt/java",
                "QUARKUS_DATASOURCE_JDBC_URL", TestDatabase.jdbcUrl(),
                "QUARKUS_DATASOURCE_USERNAME", "postgres",
                "QUARKUS_DATASOURCE_PASSWORD", "postgres",
                "QUARKUS_HTTP_PORT", Integer.toString(port),
                "DROVER_SCHEMA", "image_it",
                "DROVER_NODENAME", "image-node",
                "DROVER_API_TOKEN", "t"), log, entrypointWithSmallHeap());
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
        }
        assertThat(Files.readString(log)).contains("Drover node image-node:").contains("stopped");
    }

    /** The image's own entrypoint (its JVM flags: a directives file that does not load stops the JVM), with a test-sized heap. */
    private static String[] entrypointWithSmallHeap() throws Exception {
        List<String> command = new ArrayList<>(image.entrypoint());
        command.add(1, "-Xmx256m");
        return command.toArray(String[]::new);
    }
}
