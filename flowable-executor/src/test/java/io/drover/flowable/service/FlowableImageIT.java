package io.drover.flowable.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.drover.flowable.testing.EmbeddedPostgres;
import org.flowable.engine.ProcessEngine;
import org.flowable.engine.impl.cfg.StandaloneProcessEngineConfiguration;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OCI archive built by `make flowable-image` (spec.engine Flowable's default image): its
 * metadata, its contents, and the node running from its root filesystem (chroot, as the image's
 * user) against a real PostgreSQL, where it creates Flowable's schema, deploys the bundled
 * models and runs their async jobs and due timers to the end. Run by `make test`, which builds
 * the archive first (the image-test profile).
 */
class FlowableImageIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SCHEMA = "flowable_image_it";
    private static Path layout;
    private static Path rootfs;

    @BeforeAll
    static void unpack() throws Exception {
        String archive = System.getProperty("it.flowable.image.archive");
        assertThat(archive).as("system property it.flowable.image.archive (run via make test)").isNotBlank();
        assertThat(new File(archive)).as("image archive").exists();
        layout = Files.createTempDirectory("flowable-image");
        run("tar", "-xf", archive, "-C", layout.toString());
        rootfs = layout.resolve("rootfs");
        Files.createDirectories(rootfs);
        for (JsonNode layer : manifest().get("layers")) {
            String digest = layer.get("digest").asText().substring("sha256:".length());
            run("tar", "-xzf", layout.resolve("blobs/sha256/" + digest).toString(), "-C", rootfs.toString());
        }
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (layout != null) {
            run("rm", "-rf", layout.toString());
        }
    }

    @Test
    void entrypointRunsTheNodeAsANonRootUserWithNoShell() throws Exception {
        JsonNode config = blob(manifest().at("/config/digest").asText()).get("config");
        List<String> entrypoint = new ArrayList<>();
        config.get("Entrypoint").forEach(n -> entrypoint.add(n.asText()));
        assertThat(entrypoint).startsWith("/opt/java/bin/java").endsWith("-jar", "/app/quarkus-run.jar");
        assertThat(config.get("User").asText()).isEqualTo("10001:10001");
        assertThat(config.get("ExposedPorts").has("8080/tcp")).isTrue();
        assertThat(rootfs.resolve("opt/java/bin/java")).isExecutable();
        assertThat(rootfs.resolve("app/quarkus-run.jar")).exists();
        assertThat(rootfs.resolve("bin/sh")).doesNotExist();
        assertThat(rootfs.resolve("usr/bin/sh")).doesNotExist();
    }

    @Test
    void theImageRunsAsyncJobsAndTimersOfTheBundledModels() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path log = Files.createTempFile("flowable-image", ".log");
        // A container runtime mounts /proc; the JVM launcher needs it.
        run("mount", "--bind", "/proc", rootfs.resolve("proc").toString());
        ProcessBuilder pb = new ProcessBuilder("/usr/sbin/chroot", "--userspec=10001:10001", rootfs.toString(),
                "/opt/java/bin/java", "-Xmx384m", "-jar", "/app/quarkus-run.jar")
                .redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().clear();
        pb.environment().put("JAVA_HOME", "/opt/java");
        pb.environment().put("QUARKUS_DATASOURCE_JDBC_URL", jdbcUrl());
        pb.environment().put("QUARKUS_DATASOURCE_USERNAME", "postgres");
        pb.environment().put("QUARKUS_DATASOURCE_PASSWORD", "postgres");
        pb.environment().put("QUARKUS_HTTP_PORT", Integer.toString(port));
        pb.environment().put("DROVER_SCHEMA", SCHEMA);
        pb.environment().put("DROVER_NODENAME", "flowable-image-0");
        pb.environment().put("DROVER_LOCKMODE", "Global");
        pb.environment().put("DROVER_ACQUIREINTERVAL", "200ms");
        Process p = pb.start();
        HttpClient http = HttpClient.newHttpClient();
        URI base = URI.create("http://127.0.0.1:" + port);
        ProcessEngine starter = null;
        try {
            await("the node in the image ready", Duration.ofSeconds(180), () -> {
                assertThat(p.isAlive()).as("the node is running").isTrue();
                return status(http, base.resolve("/q/health/ready")) == 200;
            });
            starter = starterEngine();
            var runtime = starter.getRuntimeService();
            for (int i = 0; i < 50; i++) {
                runtime.startProcessInstanceByKey("asyncNoop");
            }
            for (int i = 0; i < 10; i++) {
                runtime.startProcessInstanceByKey("timer", Map.of("dueAt", Instant.now().toString()));
            }
            await("every process instance finished by the image", Duration.ofSeconds(120),
                    () -> runtime.createProcessInstanceQuery().count() == 0);
            assertThat(starter.getManagementService().createDeadLetterJobQuery().count()).as("dead-lettered jobs").isZero();
            String metrics = http.send(HttpRequest.newBuilder(base.resolve("/q/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(metrics)
                    .contains("drover_jobs_executed_total{outcome=\"succeeded\",type=\"async-continuation\"} 50.0")
                    .contains("drover_jobs_executed_total{outcome=\"succeeded\",type=\"trigger-timer\"} 10.0");
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nnode output:\n" + Files.readString(log), e);
        } finally {
            if (starter != null) {
                starter.close();
            }
            p.toHandle().destroy();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the node stops on SIGTERM").isTrue();
            run("umount", "-l", rootfs.resolve("proc").toString());
        }
    }

    private static String jdbcUrl() {
        return EmbeddedPostgres.server().getJdbcUrl("postgres", "postgres");
    }

    /** A Flowable engine in this JVM, its async executor off, on the schema the node created. */
    private static ProcessEngine starterEngine() {
        var cfg = new StandaloneProcessEngineConfiguration();
        cfg.setJdbcUrl(jdbcUrl() + "&currentSchema=" + SCHEMA);
        cfg.setJdbcUsername("postgres");
        cfg.setJdbcPassword("postgres");
        cfg.setJdbcDriver("org.postgresql.Driver");
        cfg.setDatabaseSchema(SCHEMA);
        cfg.setDatabaseSchemaUpdate("false");
        cfg.setAsyncExecutorActivate(false);
        cfg.setCreateDiagramOnDeploy(false);
        cfg.setEngineName("flowable-image-it-starter");
        return cfg.buildProcessEngine();
    }

    private static int status(HttpClient http, URI uri) {
        try {
            return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    private static void await(String what, Duration timeout, BooleanSupplier done) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (!done.getAsBoolean()) {
            assertThat(Instant.now()).as(what + " within " + timeout).isBefore(deadline);
            Thread.sleep(250);
        }
    }

    private static JsonNode blob(String digest) throws Exception {
        return JSON.readTree(layout.resolve("blobs/sha256/" + digest.substring("sha256:".length())).toFile());
    }

    private static JsonNode manifest() throws Exception {
        JsonNode index = JSON.readTree(layout.resolve("index.json").toFile());
        assertThat(index.at("/manifests/0/annotations/org.opencontainers.image.ref.name").asText())
                .as("the reference containerd will import it as").isEqualTo("localhost/flowable-executor:0.1.0");
        return blob(index.at("/manifests/0/digest").asText());
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).inheritIO().start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command)).isZero();
    }
}
