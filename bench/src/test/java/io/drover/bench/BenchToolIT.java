package io.drover.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.agroal.api.AgroalDataSource;
import io.drover.executor.acquire.LockMode;
import io.drover.executor.bench.Database;
import io.drover.executor.bench.JobKind;
import io.drover.executor.bench.Scenario;
import io.drover.executor.store.Migrations;
import io.drover.executor.store.PooledDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run end to end on a real PostgreSQL with the packaged executor, both ways: this module's
 * {@code run}, which starts local nodes, and the image's {@code java -jar quarkus-run.jar bench
 * run}, which measures a fleet already running (what the bench Job in a cluster does).
 */
class BenchToolIT {
    private static final String JAR = System.getProperty("it.executor.jar");
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    private static EmbeddedPostgres postgres;

    @BeforeAll
    static void startPostgres() throws IOException {
        postgres = EmbeddedPostgres.builder()
                .setServerConfig("max_connections", "300")
                .setServerConfig("fsync", "off") // test data is disposable; keeps the box responsive
                .start();
    }

    @AfterAll
    static void stopPostgres() throws IOException {
        postgres.close();
    }

    private static Database database() {
        return new Database(postgres.getJdbcUrl("postgres", "postgres"), "postgres", "postgres");
    }

    /** Runs a bench command in its own JVM, as a user would, and reads the result JSON it wrote. */
    private static JsonNode bench(List<String> command, String... options) throws Exception {
        Path json = Files.createTempFile("bench", ".json");
        Path log = Files.createTempFile("bench", ".log");
        List<String> cmd = new ArrayList<>(command);
        cmd.addAll(List.of("--jdbc-url=" + database().jdbcUrl(), "--user=postgres", "--password=postgres",
                "--json=" + json));
        cmd.addAll(List.of(options));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        String output = Files.readString(log);
        assertThat(p.exitValue()).as(output).isZero();
        assertThat(output).contains("jobs/s").contains("[##############################] 100%");
        return new ObjectMapper().readTree(json.toFile());
    }

    private static JsonNode localRun(String... options) throws Exception {
        // As make bench runs the tool: the executor's classes log through JBoss LogManager.
        return bench(List.of(JAVA, "-Djava.util.logging.manager=org.jboss.logmanager.LogManager",
                "-cp", System.getProperty("java.class.path"), BenchTool.class.getName(), "run",
                "--executor-jar=" + JAR, "--logs=" + Files.createTempDirectory("bench-logs")), options);
    }

    @Test
    void drainsNoopJobsAndReportsTheAcquisitionFigures() throws Exception {
        // After a first drain of 1000 (as make bench runs each configuration): only the measured
        // drain's jobs are counted.
        JsonNode r = localRun("--schema=bench_it_noop", "--kind=noop", "--jobs=3000", "--nodes=2",
                "--lockMode=Optimistic", "--acquirePageSize=128", "--timeout=120s", "--first-drain=1000");
        assertThat(r.get("jobs").asLong()).isEqualTo(3000);
        assertThat(r.get("drained").asLong()).isEqualTo(3000);
        assertThat(r.get("timedOut").asBoolean()).isFalse();
        assertThat(r.get("jobsPerSecond").asDouble()).isPositive();
        assertThat(r.get("jobsPerAcquisition").asDouble()).isBetween(1.0, 128.0);
        assertThat(r.get("startDelayP99Ms").asDouble()).isGreaterThanOrEqualTo(r.get("startDelayP50Ms").asDouble());
        assertThat(r.get("optimisticLockFailures").asDouble()).isGreaterThanOrEqualTo(0);
        // Local nodes and a local PostgreSQL: both CPU figures from /proc.
        assertThat(r.get("executorCpuMicrosPerJob").asDouble()).isPositive();
        assertThat(r.get("databaseCpuMicrosPerJob").asDouble()).isPositive();
        assertThat(r.get("jobsPerDatabaseCoreSecond").asDouble()).isPositive();
        assertThat(r.get("commitsPerJob").asDouble()).isBetween(1.0 / 128, 1.0);
    }

    @Test
    void sleepJobsAreComparedWithTheTheoreticalMaximum() throws Exception {
        JsonNode r = localRun("--schema=bench_it_sleep", "--kind=sleep:50", "--jobs=400", "--nodes=1", "--threads=8",
                "--lockMode=Global", "--timeout=120s");
        assertThat(r.get("drained").asLong()).isEqualTo(400);
        assertThat(r.get("theoreticalMaxPerSecond").asDouble()).isEqualTo(160.0); // 1 x 8 x 1000/50
        assertThat(r.get("percentOfTheoretical").asDouble()).isBetween(1.0, 100.0);
        assertThat(r.get("globalLockWaitMeanMs").isNumber()).isTrue();
    }

    @Test
    void theImagesBenchRunMeasuresARunningFleet() throws Exception {
        String schema = "bench_it_fleet";
        Scenario nodes = new Scenario(JobKind.parse("noop"), 0, 2, LockMode.SkipLocked, 256, 8, 1024,
                Duration.ofSeconds(120));
        try (AgroalDataSource ds = PooledDataSource.create(database().jdbcUrl(), "postgres", "postgres", 2)) {
            Migrations.migrate(ds, schema);
        }
        try (LocalFleet fleet = LocalFleet.start(Path.of(JAR), database(), schema, nodes,
                Files.createTempDirectory("bench-logs"))) {
            String metrics = fleet.metricsUrls().stream().map(URI::toString).collect(Collectors.joining(","));
            JsonNode r = bench(List.of(JAVA, "-jar", JAR, "bench", "run"), "--schema=" + schema, "--jobs=2000",
                    "--nodes=2", "--timeout=120s", "--metrics-urls=" + metrics);
            assertThat(r.get("drained").asLong()).isEqualTo(2000);
            assertThat(r.get("nodes").asInt()).isEqualTo(2);
            // Figures only the nodes' metrics can give.
            assertThat(r.get("jobsPerAcquisition").asDouble()).isBetween(1.0, 256.0);
            assertThat(r.get("startDelayP99Ms").asDouble()).isPositive();
            assertThat(r.get("executorCpuMicrosPerJob").asDouble()).isPositive();
            // The database's CPU is not visible to a run that only has the nodes' metrics.
            assertThat(r.get("databaseCpuMicrosPerJob").asDouble()).isNaN();
            assertThat(r.get("commitsPerJob").asDouble()).isPositive();
        }
        // The run vacuumed the fleet's job table before its seed (autovacuum's visits are counted apart).
        try (AgroalDataSource ds = PooledDataSource.create(database().jdbcUrl(), "postgres", "postgres", 1);
             java.sql.Connection c = ds.getConnection(); java.sql.Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("select vacuum_count from pg_stat_user_tables"
                     + " where schemaname = '" + schema + "' and relname = 'job'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(1);
        }
    }

    @Test
    void renewalTimesTheEnginesRenewalStatementAndScalesItToFleets() throws Exception {
        java.io.PrintStream stdout = System.out;
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8));
        int exit;
        try {
            exit = io.drover.executor.bench.BenchCli.commandLine(new BenchTool()).execute("renewal",
                    "--jdbc-url=" + database().jdbcUrl(), "--user=postgres", "--password=postgres", "--held=100",
                    "--backlog=2000", "--rounds=5");
        } finally {
            System.setOut(stdout);
        }
        String out = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(exit).as(out).isZero();
        assertThat(out).containsPattern("lock renewal of 100 held jobs beside 2,000 unlocked .*: median [0-9.]+ ms")
                .contains("every 15 s per node").containsPattern("16 nodes: +[0-9.]+ ms/s");
    }
}
