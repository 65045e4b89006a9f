package io.drover.executor.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** `java -jar quarkus-run.jar bench run ...` end to end: local nodes, seed, drain, JSON. */
class BenchToolIT {
    private static JsonNode bench(String... options) throws Exception {
        TestDatabase.server();
        String jar = System.getProperty("it.executor.jar");
        Path json = Files.createTempFile("bench", ".json");
        Path log = Files.createTempFile("bench", ".log");
        List<String> cmd = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar, "bench", "run",
                "--jdbc-url=" + TestDatabase.jdbcUrl(), "--user=postgres", "--password=postgres",
                "--executor-jar=" + jar, "--json=" + json, "--logs=" + Files.createTempDirectory("bench-logs")));
        cmd.addAll(List.of(options));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        String output = Files.readString(log);
        assertThat(p.exitValue()).as(output).isZero();
        assertThat(output).contains("jobs/s").contains("[##############################] 100%");
        return new ObjectMapper().readTree(json.toFile());
    }

    @Test
    void drainsNoopJobsAndReportsTheAcquisitionFigures() throws Exception {
        JsonNode r = bench("--schema=bench_it_noop", "--kind=noop", "--jobs=3000", "--nodes=2", "--lockMode=Optimistic",
                "--acquirePageSize=128", "--timeout=120s");
        assertThat(r.get("drained").asLong()).isEqualTo(3000);
        assertThat(r.get("timedOut").asBoolean()).isFalse();
        assertThat(r.get("jobsPerSecond").asDouble()).isPositive();
        assertThat(r.get("jobsPerAcquisition").asDouble()).isBetween(1.0, 128.0);
        assertThat(r.get("startDelayP99Ms").asDouble()).isGreaterThanOrEqualTo(r.get("startDelayP50Ms").asDouble());
        assertThat(r.get("optimisticLockFailures").asDouble()).isGreaterThanOrEqualTo(0);
    }

    @Test
    void sleepJobsAreComparedWithTheTheoreticalMaximum() throws Exception {
        JsonNode r = bench("--schema=bench_it_sleep", "--kind=sleep:50", "--jobs=400", "--nodes=1", "--threads=8",
                "--lockMode=Global", "--timeout=120s");
        assertThat(r.get("drained").asLong()).isEqualTo(400);
        assertThat(r.get("theoreticalMaxPerSecond").asDouble()).isEqualTo(160.0); // 1 x 8 x 1000/50
        assertThat(r.get("percentOfTheoretical").asDouble()).isBetween(1.0, 100.0);
        assertThat(r.get("globalLockWaitMeanMs").isNumber()).isTrue();
    }
}
