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

    /**
     * Bad settings end start-up naming every one, in the log and in the pod's termination
     * message (which the operator shows): an http.url without a scheme was taken, and every http
     * job failed on it until dead-lettered while the node looked healthy.
     */
    @Test
    void badSettingsStopStartupWithAMessageNamingThem() throws Exception {
        Path log = Files.createTempFile("drover-bad-config", ".log");
        Path termination = Files.createTempFile("drover-bad-config", ".termination");
        Process p = launch(Map.of("DROVER_THREADS", "0", "DROVER_LOCKMODE", "Pessimistic", "DROVER_SCHEMA", "jar_bad",
                "DROVER_HTTP_URL", "hooks.internal:8080", "QUARKUS_HTTP_PORT", Integer.toString(freePort()),
                "DROVER_TERMINATIONMESSAGEPATH", termination.toString()), log);
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("startup gave up").isTrue();
        String output = Files.readString(log);
        assertThat(p.exitValue()).as("exit code; output:\n" + output).isNotZero();
        assertThat(output).contains("lockMode must be one of Global, Optimistic, SkipLocked, got 'Pessimistic'")
                .contains("threads must be between 1 and 4096, got 0");
        assertThat(Files.readString(termination)).startsWith("StartupFailed: Start-up failed: ")
                .contains("lockMode must be one of Global, Optimistic, SkipLocked, got 'Pessimistic'")
                .contains("threads must be between 1 and 4096, got 0")
                .contains("http.url must be an http or https URL with a host").contains("got scheme 'hooks.internal' and no host")
                .doesNotContain("\n");
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

    @Test
    void waitsForADatabaseThatIsNotThereYetInsteadOfExiting() throws Exception {
        int port = freePort();
        int pgPort = freePort();
        Path log = Files.createTempFile("drover-wait", ".log");
        Process p = launch(Map.of("QUARKUS_HTTP_PORT", Integer.toString(port), "DROVER_SCHEMA", "jar_wait",
                "QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://127.0.0.1:" + pgPort + "/postgres",
                "DROVER_STARTUPTIMEOUT", "3m"), log);
        URI base = URI.create("http://127.0.0.1:" + port);
        try {
            // The database is not there (a restart, a failover): alive, not ready, saying why.
            Jobs.await("service up, waiting", Duration.ofSeconds(90), () -> status(base.resolve("/q/health/live")) == 200);
            Thread.sleep(3000);
            assertThat(p.isAlive()).isTrue();
            HttpResponse<String> ready = http.send(HttpRequest.newBuilder(base.resolve("/q/health/ready")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.body()).contains("Migrating the schema jar_wait: DatabaseUnreachable: the database cannot be"
                    + " reached or ended the session (SQLState 08001)")
                    .contains("\"drover-database\"")
                    // Anyone who reaches the pod reads this: no driver text (it names hosts and roles).
                    .doesNotContain("Connection to").doesNotContain("127.0.0.1");
            try (var pg = io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder().setPort(pgPort).start()) {
                Jobs.await("ready once the database is up", Duration.ofSeconds(90),
                        () -> status(base.resolve("/q/health/ready")) == 200);
                p.toHandle().destroy();
                assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            }
        } finally {
            p.destroyForcibly();
        }
        assertThat(Files.readString(log)).contains("Migrating the schema jar_wait failing, retrying for up to PT3M")
                .contains("Migrating the schema jar_wait succeeded after");
    }

    @Test
    void aDatabaseThatDoesNotExistEndsStartupAtOnceWithTheCause() throws Exception {
        Path log = Files.createTempFile("drover-nodb", ".log");
        Path termination = Files.createTempFile("drover-nodb", ".termination");
        String url = TestDatabase.jdbcUrl().replaceFirst("/postgres(\\?|$)", "/no_such_db$1");
        Process p = launch(Map.of("QUARKUS_HTTP_PORT", Integer.toString(freePort()), "DROVER_SCHEMA", "jar_nodb",
                "QUARKUS_DATASOURCE_JDBC_URL", url, "DROVER_STARTUPTIMEOUT", "10m",
                "DROVER_TERMINATIONMESSAGEPATH", termination.toString()), log);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("gave up without waiting for startupTimeout").isTrue();
        assertThat(p.exitValue()).isNotZero();
        assertThat(Files.readString(log)).contains("Migrating the schema jar_nodb failed:")
                .contains("\"no_such_db\" does not exist (SQLState 3D000)");
        // The pod's termination message: what the operator shows in the ExecutorCluster's conditions.
        assertThat(Files.readString(termination)).startsWith("DatabaseNotFound: Migrating the schema jar_nodb failed:")
                .contains("(SQLState 3D000)").doesNotContain("\n");
    }

    @Test
    void aRefusedLoginEndsStartupAtOnceNamingTheReason() throws Exception {
        // The embedded server trusts every password; a role that does not exist is refused the
        // same way a wrong password is on RDS (SQLState class 28). (Its JDBC URL names the user.)
        Path log = Files.createTempFile("drover-badpw", ".log");
        Path termination = Files.createTempFile("drover-badpw", ".termination");
        Process p = launch(Map.of("QUARKUS_HTTP_PORT", Integer.toString(freePort()), "DROVER_SCHEMA", "jar_badpw",
                "QUARKUS_DATASOURCE_USERNAME", "no_such_role", "DROVER_STARTUPTIMEOUT", "10m",
                "QUARKUS_DATASOURCE_JDBC_URL", TestDatabase.jdbcUrl().replace("user=postgres", "user=no_such_role"),
                "DROVER_TERMINATIONMESSAGEPATH", termination.toString()), log);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("gave up without waiting for startupTimeout").isTrue();
        assertThat(p.exitValue()).isNotZero();
        assertThat(Files.readString(termination)).startsWith("DatabaseAuthenticationFailed: Migrating the schema jar_badpw failed:")
                .contains("no_such_role").contains("SQLState 28000");
    }

    /**
     * A running node whose database takes only reads (a replica named as the host, or a role
     * that defaults to read-only transactions, as here: the engine's pool sets its own session
     * options, so the role's default is what reaches it):
     * it starts on the migrated schema, takes no job, and says why where the operator and a
     * user look: its figures and its readiness, in its own words (DatabaseReadOnly, the SQLState),
     * never the driver's text.
     */
    @Test
    void aNodeOnADatabaseThatTakesOnlyReadsSaysSoInItsFiguresAndReadiness() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        new Jobs(db, schema).enqueue(3, "noop", "", 3);
        int port = freePort();
        Path log = Files.createTempFile("drover-readonly", ".log");
        new Jobs(db, schema).execute("do $$ begin create role jar_readonly login superuser;"
                + " exception when duplicate_object then null; end $$");
        new Jobs(db, schema).execute("alter role jar_readonly set default_transaction_read_only = on");
        Process p = launch(Map.of("QUARKUS_HTTP_PORT", Integer.toString(port), "DROVER_SCHEMA", schema,
                "QUARKUS_DATASOURCE_USERNAME", "jar_readonly",
                "QUARKUS_DATASOURCE_JDBC_URL", TestDatabase.jdbcUrl().replace("user=postgres", "user=jar_readonly")), log);
        URI base = URI.create("http://127.0.0.1:" + port);
        try {
            Jobs.await("the figures name the problem", Duration.ofSeconds(90), () -> body(base.resolve("/q/drover/node"))
                    .contains("\"problem\":\"DatabaseReadOnly: the database takes only reads (SQLState 25006)"));
            Jobs.await("not ready, saying why", Duration.ofSeconds(90), () -> status(base.resolve("/q/health/ready")) == 503);
            assertThat(body(base.resolve("/q/health/ready"))).contains("DatabaseReadOnly").doesNotContain("cannot execute");
            assertThat(new Jobs(db, schema).jobsLeft()).isEqualTo(3);
        } finally {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
            new Jobs(db, schema).execute("drop role if exists jar_readonly");
        }
    }

    private String body(URI uri) {
        try {
            return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            return "";
        }
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
