package io.drover.flowable.service;

import io.drover.flowable.testing.EmbeddedPostgres;
import io.drover.testing.image.OciImage;
import org.flowable.engine.ProcessEngine;
import org.flowable.engine.impl.cfg.StandaloneProcessEngineConfiguration;
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
import java.time.Duration;
import java.time.Instant;
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
    private static final String SCHEMA = "flowable_image_it";
    private static OciImage image;

    @BeforeAll
    static void unpack() throws Exception {
        image = OciImage.fromProperty("it.flowable.image.archive");
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (image != null) {
            image.close();
        }
    }

    @Test
    void entrypointRunsTheNodeAsANonRootUserWithNoShell() throws Exception {
        assertThat(image.referenceName()).as("the reference containerd will import it as")
                .isEqualTo("localhost/flowable-executor:0.1.0");
        assertThat(image.entrypoint()).startsWith("/opt/java/bin/java").endsWith("-jar", "/app/quarkus-run.jar");
        assertThat(image.config().get("User").asText()).isEqualTo("10001:10001");
        assertThat(image.config().get("ExposedPorts").has("8080/tcp")).isTrue();
        Path rootfs = image.rootfs();
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
        Process p = image.start(Map.of(
                "JAVA_HOME", "/opt/java",
                "QUARKUS_DATASOURCE_JDBC_URL", jdbcUrl(),
                "QUARKUS_DATASOURCE_USERNAME", "postgres",
                "QUARKUS_DATASOURCE_PASSWORD", "postgres",
                "QUARKUS_HTTP_PORT", Integer.toString(port),
                "DROVER_SCHEMA", SCHEMA,
                "DROVER_NODENAME", "flowable-image-0",
                "DROVER_LOCKMODE", "Global",
                "DROVER_ACQUIREINTERVAL", "200ms"), log, "/opt/java/bin/java", "-Xmx384m", "-jar", "/app/quarkus-run.jar");
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
}
