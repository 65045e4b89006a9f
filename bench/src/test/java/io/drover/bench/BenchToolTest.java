package io.drover.bench;

import io.drover.executor.bench.BenchCli;
import io.drover.bench.core.BenchResult;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The tool's command lines: the options each command keeps, and refusals (no database needed). */
class BenchToolTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int tool(String... args) {
        return BenchCli.commandLine(new BenchTool()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args);
    }

    private static <T> T parse(String... args) {
        CommandLine.ParseResult parsed = BenchCli.commandLine(new BenchTool()).parseArgs(args);
        return parsed.subcommand().commandSpec().commandLine().getCommand();
    }

    @Test
    void floorClientsTakesWhatMakeBenchFloorPasses() {
        FloorClientsCommand floor = parse("floor-clients", "--revision=abc1234", "--command=make bench-floor");
        assertThat(floor.clients).containsExactly(1, Floors.CLIENTS, 4);
        assertThat(floor.out).isEqualTo(Path.of("docs/benchmarks/floor-clients.md"));
        assertThat(floor.revision).isEqualTo("abc1234");
        assertThat(floor.command).isEqualTo("make bench-floor");
    }

    @Test
    void localTakesWhatMakeBenchPasses() {
        LocalCommand local = parse("local", "--executor-jar=q.jar", "--revision=abc1234", "--quick",
                "--command=make bench-quick");
        assertThat(local.matrix.executorJar).isEqualTo(Path.of("q.jar"));
        assertThat(local.matrix.out()).isEqualTo(Path.of("target/bench-quick"));
        assertThat(local.matrix.revision).isEqualTo("abc1234");
        assertThat(local.matrix.command).isEqualTo("make bench-quick");

        MatrixCommand matrix = parse("matrix", "--jdbc-url=jdbc:postgresql://db/jobs", "--executor-jar=q.jar");
        assertThat(matrix.matrix.out()).isEqualTo(Path.of("docs/benchmarks"));
        assertThat(matrix.matrix.command).isEqualTo("bench matrix");
        assertThat(matrix.matrix.revision).isEqualTo("unknown");
    }

    @Test
    void reportKeepsItsDefaults() {
        ClusterReport report = parse("report", "--results=target/runs");
        assertThat(report.out).isEqualTo(Path.of("docs/benchmarks/cluster"));
        assertThat(report.title).isEqualTo("In-cluster benchmark");
        assertThat(report.command).isEqualTo("e2e/bench/matrix.sh");
        assertThat(report.cluster).isEqualTo("unknown");
    }

    @Test
    void everyCommandRefusesUnknownOptionsByName() {
        String db = "--jdbc-url=jdbc:postgresql://db/jobs";
        assertThat(tool("run", db, "--executor-jar=q.jar", "--node=3")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option: '--node=3'");
        assertThat(tool("matrix", db, "--executor-jar=q.jar", "--quik")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option: '--quik'");
        assertThat(tool("local", "--executor-jar=q.jar", "--jobs=10")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option: '--jobs=10'");
        assertThat(tool("report", "--results=target/runs", "--titel=x")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option: '--titel=x'");
    }

    @Test
    void localRunsNeedTheExecutorJarAndRunningFleetsAreTheImagesBusiness() {
        assertThat(tool("run", "--jdbc-url=jdbc:postgresql://db/jobs")).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required option: '--executor-jar=PATH'");
        assertThat(tool("run", "--jdbc-url=jdbc:postgresql://db/jobs", "--executor-jar=q.jar",
                "--metrics-urls=http://node-0:8080/q/metrics")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option: '--metrics-urls=http://node-0:8080/q/metrics'");
    }

    @Test
    void aReportWithoutResultsIsAUsageError() throws Exception {
        Path empty = Files.createTempDirectory("no-results");
        assertThat(tool("report", "--results=" + empty, "--out=" + empty.resolve("page"))).isEqualTo(2);
        assertThat(err.toString()).contains("drover-bench: no *.json results in " + empty);
    }

    @Test
    void reportWritesThePageAndTheChartOfTheRunsGiven() throws Exception {
        Path runs = Files.createTempDirectory("runs");
        BenchResult run = new BenchResult("noop SkipLocked page=256 nodes=2 threads=8", "noop", "SkipLocked", 256, 2, 8,
                1024, 5000, 5000, false, 0.5, 10_000, List.of(10_000.0), 1.5, 9.5, 200, 0, Double.NaN, 0, Double.NaN,
                Double.NaN, 120, 85.5, Double.NaN, Double.NaN, 0.0078, Double.NaN);
        Files.writeString(runs.resolve("drover-bench-1.json"), BenchResult.JSON.writeValueAsString(run));
        Path out = runs.resolve("site/cluster");
        assertThat(tool("report", "--results=" + runs, "--out=" + out, "--cluster=kind nodes")).isZero();
        assertThat(Files.readString(runs.resolve("site/cluster.md"))).startsWith("# In-cluster benchmark")
                .contains("Cluster: kind nodes").contains("| noop | SkipLocked | 256 | 8 | 2 | 5,000 | 0.5 | 10,000 |").contains("| 85.5 | 0.0078 |");
        assertThat(Files.size(runs.resolve("site/cluster.png"))).isPositive();
    }

    @Test
    void theClusterPageJudgesTimersByTheirRoundsGlobalByItsWorstPairAndNamesShortDrains() throws Exception {
        Path dir = Files.createTempDirectory("cluster");
        List<BenchResult> matrix = List.of(run("noop", "Global", 256, 20.0, 20_000), run("noop", "Optimistic", 256, 40.0, 10_000),
                run("noop", "SkipLocked", 256, 16.0, 25_000), run("noop", "Global", 1, 30.0, 500),
                run("timer", "SkipLocked", 256, 17.0, 20_000));
        for (int i = 0; i < matrix.size(); i++) {
            write(dir.resolve(i + "-run.json"), matrix.get(i));
        }
        // Round 2 ran on a slow moment: both its runs are slow, and its drain is short.
        Path rounds = dir.resolve(ClusterReport.TIMER_ROUNDS);
        Files.createDirectories(rounds);
        double[][] perRound = {{24_000, 25_000, 16}, {9_000, 10_000, 12}, {26_000, 25_000, 16}};
        for (int n = 1; n <= 3; n++) {
            write(rounds.resolve("round-" + n + "-timer.json"), run("timer", "SkipLocked", 256, perRound[n - 1][2], perRound[n - 1][0]));
            write(rounds.resolve("round-" + n + "-noop.json"), run("noop", "SkipLocked", 256, perRound[n - 1][2], perRound[n - 1][1]));
        }
        assertThat(ClusterReport.timerRounds(rounds)).extracting(BenchMatrix.TimerRound::ratio).containsExactly(0.96, 0.9, 1.04);
        assertThat(ClusterReport.timerRounds(dir.resolve("absent"))).isEmpty();

        Path out = dir.resolve("site/cluster");
        assertThat(tool("report", "--results=" + dir, "--out=" + out, "--cluster=kind nodes")).isZero();
        String md = Files.readString(dir.resolve("site/cluster.md"));
        assertThat(md)
                .contains("| due timers / no-op jobs (median of back-to-back rounds) | 0.960 | >= 0.90 | met |")
                .contains("0.96 (24,000 vs 25,000), 0.90 (9,000 vs 10,000), 1.04 (26,000 vs 25,000)")
                .contains("| Global / Optimistic, the worst page size and node count | 2.000 | >= 1.00 | met |")
                .contains("| shortest drain, s | 12.000 | >= 15.00 | **missed** |")
                // the round runs are rows of their own, in the order they ran; the matrix's timer run has its pair line
                .contains("| noop (timer round 1) | SkipLocked |").contains("| timer (timer round 2) | SkipLocked |")
                .contains("- due timers / no-op jobs, SkipLocked page 256, 8 threads, 2 nodes: **0.80** (20,000 vs 25,000 jobs/s)")
                .contains("Drains under 15 s").contains("timer SkipLocked page=256").doesNotContain("noop Global page=1;");
        assertThat(md.indexOf("| noop (timer round 1)")).isLessThan(md.indexOf("| timer (timer round 1)"));
        assertThat(md.indexOf("| timer (timer round 2)")).isLessThan(md.indexOf("| noop (timer round 2)"));
    }

    @Test
    void theEnginesPagePutsFlowableBesideDroverConfigurationByConfiguration() throws Exception {
        Path runs = Files.createTempDirectory("engines");
        Files.createDirectories(runs.resolve("Drover"));
        Files.createDirectories(runs.resolve("Flowable"));
        write(runs.resolve("Drover/a.json"), run("noop", "Global", 256, 20.0, 30_000));
        write(runs.resolve("Drover/b.json"), run("noop", "Optimistic", 256, 20.0, 15_000));
        write(runs.resolve("Flowable/a.json"), run("noop", "Global", 256, 20.0, 600));
        write(runs.resolve("Flowable/b.json"), run("noop", "Optimistic", 256, 20.0, 200));
        write(runs.resolve("Flowable/c.json"), run("timer", "Global", 256, 20.0, 400)); // Drover did not run it
        Path out = runs.resolve("site/engines");
        assertThat(tool("engines-report", "--results=" + runs, "--out=" + out, "--cluster=kind nodes")).isZero();
        assertThat(Files.readString(runs.resolve("site/engines.md"))).startsWith("# Engines: Flowable's async executor beside Drover's")
                .contains("| noop | Global | 256 | 2 | 30,000 | 600 | **50.0** |")
                .contains("| noop | Optimistic | 256 | 2 | 15,000 | 200 | **75.0** |")
                .contains("| timer | Global | 256 | 2 |  | 400 |  |")
                .contains("- Drover, global acquire lock on / off, page 256, 2 nodes: **2.00** (30,000 vs 15,000 jobs/s)")
                .contains("- Flowable, global acquire lock on / off, page 256, 2 nodes: **3.00** (600 vs 200 jobs/s)");
        assertThat(Files.size(runs.resolve("site/engines.png"))).isPositive();
        Path empty = Files.createTempDirectory("no-engines");
        assertThat(tool("engines-report", "--results=" + empty, "--out=" + empty.resolve("page"))).isEqualTo(2);
    }

    private static void write(Path file, BenchResult result) throws Exception {
        Files.writeString(file, BenchResult.JSON.writeValueAsString(result));
    }

    private static BenchResult run(String kind, String mode, int page, double seconds, double jobsPerSecond) {
        return new BenchResult(kind + " " + mode + " page=" + page, kind, mode, page, 2, 8, 1024, 1000, 1000, false, seconds,
                jobsPerSecond, List.of(), 1, 2, page, 0, Double.NaN, 0, Double.NaN, Double.NaN, 100, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, Double.NaN);
    }

    @Test
    void helpExitsZeroAndNoCommandIsAUsageError() {
        assertThat(tool("--help")).isZero();
        assertThat(tool("local", "--help")).isZero();
        assertThat(out.toString()).contains("local").contains("--executor-jar=PATH").contains("--quick");
        assertThat(tool()).isEqualTo(2);
    }
}
