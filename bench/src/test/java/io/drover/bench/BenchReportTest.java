package io.drover.bench;

import io.drover.bench.core.BenchResult;
import io.drover.executor.acquire.LockMode;
import io.drover.executor.bench.JobKind;
import io.drover.executor.bench.Scenario;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The local page's results table, with each run's first drain beside it; what make bench drains first. */
class BenchReportTest {
    @Test
    void everyResultRowHasTheHeadersCellsWithOrWithoutAFirstDrain() {
        BenchResult measured = result(40_000, 12.5, 4.0);
        BenchResult first = result(30_000, 31.0, 20.0);
        String md = BenchReport.markdown("local", Map.of("command", "make bench"), floors(),
                List.of(new BenchReport.Row(0, measured, first), new BenchReport.Row(2, measured, null)), List.of(),
                List.of(), List.of());
        List<String> table = md.lines().dropWhile(l -> !l.equals("## Results")).skip(2)
                .takeWhile(l -> l.startsWith("|")).toList();
        assertThat(table).hasSize(4); // header, separator, two rows
        long cells = cells(table.get(0));
        assertThat(cells).isEqualTo(25);
        table.forEach(row -> assertThat(cells(row)).as(row).isEqualTo(cells));
        assertThat(table.get(2)).endsWith("| 100,000 | 30,000 | 31.0 | 65% |");
        assertThat(table.get(3)).endsWith("|  |  |  |  |").startsWith("| noop (timer round 2) | SkipLocked |");
    }

    @Test
    void theTargetsPickAmongTheMatrixsRunsNotTheTimerRounds() {
        // A timer round's no-op run on a fast moment of the machine must not become the "best 2-node no-op".
        List<BenchReport.Row> rows = List.of(new BenchReport.Row(0, run("SkipLocked", 512, 2, 50_000), null),
                new BenchReport.Row(0, run("SkipLocked", 256, 2, 45_000), null),
                new BenchReport.Row(1, run("SkipLocked", 256, 2, 70_000), null));
        List<BenchResult> matrix = BenchReport.Row.matrix(rows);
        assertThat(matrix).extracting(BenchResult::jobsPerSecond).containsExactly(50_000.0, 45_000.0);
        BenchMatrix.Target best = BenchMatrix.targets(matrix, floors(), List.of()).get(0);
        // The page-256 run against page 256's floor (0.56) beats the page-512 one against 512's (0.33).
        assertThat(best.detail()).contains("45,000 vs 80,000").doesNotContain("70,000");
    }

    @Test
    void eachRunIsSetAgainstTheFloorOfItsOwnPageSize() {
        // Page 512 commits half as often per job, on either side: its run against page 256's floor
        // credited the page size to the executor. Here the page-256 run has the better ratio.
        List<BenchResult> matrix = List.of(run("Global", 512, 2, 90_000), run("SkipLocked", 256, 2, 60_000),
                run("SkipLocked", 1, 2, 1_000));
        List<BenchMatrix.Target> targets = BenchMatrix.targets(matrix, floors(), List.of());
        assertThat(targets.get(0).ratio()).isEqualTo(60_000.0 / 80_000);
        assertThat(targets.get(0).detail()).contains("60,000 vs 80,000");
        assertThat(targets.get(1).detail()).contains("page 256");
        assertThat(floors().fairFor(512).jobsPerSecond()).isEqualTo(150_000);
        assertThat(floors().fairFor(1).jobsPerSecond()).as("page 1 has no floor of its own").isEqualTo(80_000);
        // Without a floor at 512, the 512 run is not compared at all.
        Floors only256 = new Floors(floors().runs().stream().filter(r -> r.batch() == 256).toList());
        assertThat(only256.bestTwoNodeNoop(matrix).orElseThrow().run().acquirePageSize()).isEqualTo(256);
        assertThat(Floors.pages(List.of(1, 256, 512, 256))).containsExactly(256, 512);
    }

    @Test
    void theFirstDrainIsAsLongAsTheMeasuredOneExceptWhereThatTakesMinutes() {
        assertThat(BenchMatrix.firstDrainJobs(scenario("noop", 256))).isEqualTo(100_000);
        assertThat(BenchMatrix.firstDrainJobs(scenario("noop", 1))).isEqualTo(10_000);
        assertThat(BenchMatrix.firstDrainJobs(scenario("sleep:100", 256))).isEqualTo(20_000);
    }

    @Test
    void globalAgainstOptimisticIsJudgedByItsWorstPair() {
        List<BenchResult> runs = List.of(run("Global", 1, 1, 700), run("Optimistic", 1, 1, 600),
                run("Global", 256, 2, 30_000), run("Optimistic", 256, 2, 15_000),
                run("Global", 512, 2, 20_000), run("Optimistic", 512, 2, 25_000), run("Global", 512, 1, 40_000));
        BenchMatrix.Target t = BenchMatrix.globalOverOptimistic(runs).orElseThrow();
        assertThat(t.ratio()).isEqualTo(0.8);
        assertThat(t.met()).isFalse();
        assertThat(t.detail()).contains("page 512, 2 nodes: 20,000 vs 25,000 jobs/s")
                .contains("page 1 x 1: 1.17").contains("page 256 x 2: 2.00").doesNotContain("page 512 x 1");
        assertThat(BenchMatrix.globalOverOptimistic(List.of(run("Global", 1, 1, 700)))).isEmpty();
    }

    @Test
    void timersAgainstNoOpsAreTheMedianOfBackToBackRounds() {
        // Round 2 ran on a slow moment of the machine: both its runs are slow, its ratio is not.
        List<BenchMatrix.TimerRound> rounds = List.of(
                new BenchMatrix.TimerRound(run("SkipLocked", 256, 2, 60_000), run("SkipLocked", 256, 2, 62_000)),
                new BenchMatrix.TimerRound(run("SkipLocked", 256, 2, 30_000), run("SkipLocked", 256, 2, 32_000)),
                new BenchMatrix.TimerRound(run("SkipLocked", 256, 2, 50_000), run("SkipLocked", 256, 2, 62_500)));
        BenchMatrix.Target t = BenchMatrix.timersOverNoops(rounds).orElseThrow();
        assertThat(t.ratio()).isEqualTo(30_000.0 / 32_000);
        assertThat(t.met()).isTrue();
        assertThat(t.detail()).contains("3 rounds").contains("SkipLocked page=256 nodes=2, 100,000 jobs each")
                .contains("0.97 (60,000 vs 62,000), 0.94 (30,000 vs 32,000), 0.80 (50,000 vs 62,500)");
        assertThat(BenchMatrix.timersOverNoops(List.of())).isEmpty();
    }

    private static BenchResult run(String mode, int page, int nodes, double jobsPerSecond) {
        return new BenchResult("noop " + mode, "noop", mode, page, nodes, 8, 1024, 100_000, 100_000, false, 1,
                jobsPerSecond, List.of(), 1, 2, page, 0, Double.NaN, 0, Double.NaN, Double.NaN, 450, 10, 5, 17, 0.006,
                58_000);
    }

    private static Scenario scenario(String kind, int page) {
        return new Scenario(JobKind.parse(kind), 100_000, 2, LockMode.SkipLocked, page, 8, 1024, Duration.ofMinutes(3));
    }

    private static long cells(String row) {
        return row.chars().filter(c -> c == '|').count() - 1;
    }

    private static Floors floors() {
        return new Floors(List.of(new SqlFloor.Result("two-commit", "before", 100_000, 2, 256, 1.2, 80_000,
                "job_acquire_idx", 470, 18, 0.0078, 55_000), new SqlFloor.Result("delete-only", "before", 100_000, 2,
                256, 0.5, 180_000, "job_acquire_idx", 115, 8, 0.0039, 120_000),
                new SqlFloor.Result("two-commit", "before", 100_000, 2, 512, 0.7, 150_000,
                "job_acquire_idx", 400, 12, 0.0039, 80_000)));
    }

    private static BenchResult result(double jobsPerSecond, double executorCpu, double jit) {
        return new BenchResult("noop SkipLocked page=256 nodes=2 threads=8", "noop", "SkipLocked", 256, 2, 8, 1024,
                100_000, 100_000, false, 100_000 / jobsPerSecond, jobsPerSecond, List.of(), 1, 2, 255, 0, Double.NaN,
                0, Double.NaN, Double.NaN, 450, executorCpu, jit, 17, 0.006, 58_000);
    }
}
