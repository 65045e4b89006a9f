package io.drover.operator.figures;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules of docs/diagnosis.md on readings as executors report them: two readings of each
 * node 60 s apart, the second built from the first by what happened in between.
 */
class BottleneckTest {
    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
    private static final Bottleneck.Context SKIP_LOCKED = new Bottleneck.Context("SkipLocked", false, 2, 0);

    /** A node's reading; counters start at the given totals. */
    private static NodeReading node(String lockMode, int busy, int queued, double backlog, double lag, double executed,
                                    double executionSeconds, double acquisitions, double acquisitionSeconds, double acquired,
                                    double globalWait, double lost) {
        return new NodeReading("n", lockMode, 8, busy, 1024, queued, busy + queued, backlog, lag, 0,
                executed, executed, 0, 0, executionSeconds, executed, 0, acquisitions, acquisitionSeconds, acquired, 0,
                globalWait, lost, null);
    }

    private static Bottleneck.Diagnosis diagnose(NodeReading before, NodeReading after, Bottleneck.Context ctx) {
        FleetFigures figures = new FleetFigures();
        figures.observe("uid", Map.of("a-0", before, "a-1", before), T0);
        return Bottleneck.diagnose(figures.observe("uid", Map.of("a-0", after, "a-1", after), T0.plusSeconds(60)), ctx);
    }

    @Test
    void anEmptyFleetIsIdleAndOneThatKeepsUpSaysSo() {
        NodeReading quiet = node("SkipLocked", 0, 0, 0, 0, 100, 1, 10, 0.1, 100, 0, 0);
        assertThat(diagnose(quiet, quiet, SKIP_LOCKED).reason()).isEqualTo("Idle");
        NodeReading working = node("SkipLocked", 3, 0, 0, 0, 700, 7, 70, 0.7, 700, 0, 0);
        Bottleneck.Diagnosis d = diagnose(quiet, working, SKIP_LOCKED);
        assertThat(d.status()).isEqualTo("False");
        assertThat(d.reason()).isEqualTo("KeepingUp");
        assertThat(d.message()).contains("20.0 jobs/s", "threads 1% busy");
    }

    @Test
    void allThreadsBusyWithLongJobsIsHandlerBoundAndWithShortJobsPoolSaturated() {
        NodeReading before = node("SkipLocked", 8, 1000, 5000, 30, 0, 0, 0, 0, 0, 0, 0);
        NodeReading slow = node("SkipLocked", 8, 1000, 5000, 60, 480, 480, 20, 0.2, 480, 0, 0);
        Bottleneck.Diagnosis handler = diagnose(before, slow, SKIP_LOCKED);
        assertThat(handler.status()).isEqualTo("True");
        assertThat(handler.reason()).isEqualTo("HandlerBound");
        assertThat(handler.message()).contains("take 1.00 s on average", "virtualThreads");

        NodeReading fast = node("SkipLocked", 8, 1000, 5000, 60, 48000, 480, 200, 2, 48000, 0, 0);
        Bottleneck.Diagnosis pool = diagnose(before, fast, SKIP_LOCKED);
        assertThat(pool.reason()).isEqualTo("PoolSaturated");
        assertThat(pool.message()).contains("queues are 98% full", "Add nodes");
    }

    @Test
    void idleThreadsWithJobsDueIsAcquisitionBound() {
        NodeReading before = node("SkipLocked", 0, 0, 5000, 30, 0, 0, 0, 0, 0, 0, 0);
        NodeReading after = node("SkipLocked", 1, 0, 5000, 90, 60, 0.6, 60, 0.6, 60, 0, 0);
        Bottleneck.Diagnosis d = diagnose(before, after, SKIP_LOCKED);
        assertThat(d.reason()).isEqualTo("AcquisitionBound");
        assertThat(d.message()).contains("1.00 jobs per acquisition", "Raise acquirePageSize");
    }

    @Test
    void lockWaitsAndLostClaimsAreLockContention() {
        NodeReading before = node("Global", 0, 0, 5000, 30, 0, 0, 0, 0, 0, 0, 0);
        NodeReading waiting = node("Global", 1, 0, 5000, 90, 600, 6, 60, 50, 600, 45, 0);
        Bottleneck.Diagnosis global = diagnose(before, waiting, new Bottleneck.Context("Global", false, 2, 0));
        assertThat(global.reason()).isEqualTo("LockContention");
        assertThat(global.message()).contains("75% of their time waiting for the global acquire lock", "SkipLocked");

        NodeReading optimisticBefore = node("Optimistic", 0, 0, 5000, 30, 0, 0, 0, 0, 0, 0, 0);
        NodeReading losing = node("Optimistic", 1, 0, 5000, 90, 600, 6, 60, 3, 600, 0, 400);
        Bottleneck.Diagnosis optimistic = diagnose(optimisticBefore, losing, new Bottleneck.Context("Optimistic", false, 2, 0));
        assertThat(optimistic.reason()).isEqualTo("LockContention");
        assertThat(optimistic.message()).contains("40% of job claims are lost");
    }

    @Test
    void slowAcquisitionRoundTripsAreDatabaseBound() {
        NodeReading before = node("SkipLocked", 0, 0, 5000, 30, 0, 0, 0, 0, 0, 0, 0);
        NodeReading after = node("SkipLocked", 1, 0, 5000, 90, 600, 6, 60, 45, 600, 0, 0);
        Bottleneck.Diagnosis d = diagnose(before, after, SKIP_LOCKED);
        assertThat(d.reason()).isEqualTo("DatabaseBound");
        assertThat(d.message()).contains("750 ms on average");
    }

    @Test
    void atMaxReplicasWithGrowingLagIsScalingCapped() {
        NodeReading before = node("SkipLocked", 8, 1000, 5000, 30, 0, 0, 0, 0, 0, 0, 0);
        NodeReading after = node("SkipLocked", 8, 1000, 5000, 90, 480, 480, 20, 0.2, 480, 0, 0);
        Bottleneck.Diagnosis d = diagnose(before, after, new Bottleneck.Context("SkipLocked", true, 2, 2));
        assertThat(d.reason()).isEqualTo("ScalingCapped");
        assertThat(d.message()).contains("maxReplicas (2 nodes)", "30s -> 1m30s");
    }

    @Test
    void withoutTwoReadingsNothingIsClaimed() {
        FleetFigures figures = new FleetFigures();
        var once = figures.observe("uid", Map.of("a-0", node("SkipLocked", 8, 1000, 5000, 30, 0, 0, 0, 0, 0, 0, 0)), T0);
        assertThat(Bottleneck.diagnose(once, SKIP_LOCKED).status()).isEqualTo("Unknown");
        assertThat(Bottleneck.diagnose(figures.observe("uid", Map.of(), T0), SKIP_LOCKED).reason()).isEqualTo("NoFigures");
    }

    @Test
    void aDatabaseNoNodeCanReadMakesTheBacklogUnknownNotZero() {
        NodeReading out = node("SkipLocked", 0, 0, Double.NaN, Double.NaN, 0, 0, 0, 0, 0, 0, 0);
        FleetFigures figures = new FleetFigures();
        figures.observe("uid", Map.of("a-0", out), T0);
        var s = figures.observe("uid", Map.of("a-0", out), T0.plusSeconds(30));
        assertThat(s.status().dueBacklog).isNull();
        assertThat(s.status().lag).isNull();
        assertThat(Bottleneck.diagnose(s, SKIP_LOCKED).reason()).isEqualTo("DatabaseUnavailable");
    }

    @Test
    void aMissedReadingKeepsTheRatesAndAnIdleRestartIsSeen() {
        FleetFigures figures = new FleetFigures();
        figures.observe("uid", Map.of("a-0", node("SkipLocked", 1, 0, 10, 1, 0, 0, 10, 1, 10, 0, 0)), T0);
        figures.observe("uid", Map.of(), T0.plusSeconds(15)); // a-0 did not answer in time
        var s = figures.observe("uid", Map.of("a-0", node("SkipLocked", 1, 0, 10, 1, 300, 3, 40, 4, 310, 0, 0)),
                T0.plusSeconds(30));
        assertThat(s.status().jobsPerSecond).isEqualTo(10.0);
        // Restarted without finishing a job (executed still 300 > 0 would hide it): its acquisitions went down.
        var restarted = figures.observe("uid", Map.of("a-0", node("SkipLocked", 1, 0, 10, 1, 300, 3, 2, 0.1, 310, 0, 0)),
                T0.plusSeconds(45));
        assertThat(restarted.nodes()).singleElement().satisfies(n -> assertThat(n.seconds()).isZero());
    }

    @Test
    void theFleetStatusSumsNodesAndTakesClusterWideGaugesOnce() {
        FleetFigures figures = new FleetFigures();
        figures.observe("uid", Map.of("a-0", node("SkipLocked", 2, 10, 100, 5, 0, 0, 0, 0, 0, 0, 0),
                "a-1", node("SkipLocked", 4, 20, 100, 5, 0, 0, 0, 0, 0, 0, 0)), T0);
        var s = figures.observe("uid", Map.of("a-0", node("SkipLocked", 2, 10, 120, 75, 600, 0, 0, 0, 0, 0, 0),
                "a-1", node("SkipLocked", 4, 20, 120, 75, 1200, 0, 0, 0, 0, 0, 0)), T0.plusSeconds(60)).status();
        assertThat(s.nodesReporting).isEqualTo(2);
        assertThat(s.jobsPerSecond).isEqualTo(30.0);
        assertThat(s.dueBacklog).as("every node reads the same table: not summed").isEqualTo(120);
        assertThat(s.lag).isEqualTo("1m15s");
        assertThat(s.busyThreads).isEqualTo(6);
        assertThat(s.threads).isEqualTo(16);
        assertThat(s.queued).isEqualTo(30);
        assertThat(s.nodes).extracting(n -> n.name + "=" + n.jobsPerSecond).containsExactly("a-0=10.0", "a-1=20.0");

        // A restarted node (its totals went down) starts its history again instead of a negative rate.
        var restarted = figures.observe("uid", Map.of("a-0", node("SkipLocked", 2, 10, 120, 75, 5, 0, 0, 0, 0, 0, 0)),
                T0.plusSeconds(70)).status();
        assertThat(restarted.nodes).singleElement().satisfies(n -> assertThat(n.jobsPerSecond).isZero());
    }
}
