package io.drover.executor.bench;

import io.drover.executor.acquire.LockMode;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The image's {@code bench} command line: names, defaults, and refusals (no database needed). */
class BenchMainTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int bench(String... args) {
        return BenchCli.commandLine(new BenchMain()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args);
    }

    private static RunCommand parseRun(String... options) {
        String[] args = Stream.concat(Stream.of("run"), Arrays.stream(options)).toArray(String[]::new);
        return BenchCli.commandLine(new BenchMain()).parseArgs(args).subcommand().commandSpec().commandLine()
                .getCommand();
    }

    @Test
    void runKeepsItsOptionNamesAndDefaults() {
        RunCommand run = parseRun("--jdbc-url=jdbc:postgresql://db:5432/jobs");
        assertThat(run.run.scenario()).isEqualTo(new Scenario(JobKind.parse("noop"), 100_000, 2, LockMode.SkipLocked,
                256, 8, 1024, Duration.ofSeconds(600)));
        assertThat(run.run.schema()).isEqualTo("drover_bench");
        assertThat(run.run.database().user()).isEqualTo("postgres");
        assertThat(run.metricsUrls).isEmpty();

        run = parseRun("--jdbc-url=jdbc:postgresql://db/jobs", "--user=drover", "--password=secret", "--schema=s",
                "--kind=sleep:100", "--jobs=10", "--nodes=3", "--lockMode=Global", "--acquirePageSize=64",
                "--threads=16", "--queueSize=2048", "--timeout=30s", "--metrics-urls=http://a:8080/q/metrics");
        assertThat(run.run.scenario()).isEqualTo(new Scenario(JobKind.parse("sleep:100"), 10, 3, LockMode.Global, 64,
                16, 2048, Duration.ofSeconds(30)));
        assertThat(run.run.schema()).isEqualTo("s");
        assertThat(run.run.database()).isEqualTo(new Database("jdbc:postgresql://db/jobs", "drover", "secret"));
        assertThat(run.metricsUrls).isEqualTo("http://a:8080/q/metrics");
    }

    @Test
    void unknownOptionsAreRefusedByName() {
        assertThat(bench("run", "--jdbc-url=jdbc:postgresql://db/jobs", "--node=3")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option: '--node=3'");
    }

    @Test
    void localNodesAreNotTheImagesBusiness() {
        assertThat(bench("run", "--jdbc-url=jdbc:postgresql://db/jobs", "--executor-jar=quarkus-run.jar")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option: '--executor-jar=quarkus-run.jar'");
        assertThat(bench("matrix")).isEqualTo(2);
        assertThat(err.toString()).contains("Unmatched argument at index 0: 'matrix'");
    }

    @Test
    void badValuesAreRefusedInTheExecutorsWords() {
        assertThat(bench("run", "--jdbc-url=jdbc:postgresql://db/jobs", "--lockMode=Pessimistic")).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--lockMode': lockMode must be one of Global,"
                + " Optimistic, SkipLocked, got 'Pessimistic'");
        assertThat(bench("run", "--jdbc-url=jdbc:postgresql://db/jobs", "--timeout=soon")).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--timeout'");
        assertThat(bench("run", "--kind=noop")).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required option: '--jdbc-url=URL'");
        assertThat(bench("run", "--jdbc-url=")).isEqualTo(2); // e.g. an unset variable in a script
        assertThat(err.toString()).contains("bench: --jdbc-url is required");
    }

    @Test
    void helpExitsZeroAndNoCommandIsAUsageError() {
        assertThat(bench("--help")).isZero();
        assertThat(bench("help")).isZero();
        assertThat(bench("run", "--help")).isZero();
        assertThat(out.toString()).contains("--metrics-urls=URL,...").contains("--acquirePageSize");
        assertThat(bench()).isEqualTo(2);
    }
}
