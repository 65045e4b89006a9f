package io.drover.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LatencyTargetsTest {
    private static IdleLatency.Result idle(String mode, boolean notify, double rate, double p50, double p99) {
        return new IdleLatency.Result(mode, notify, rate, 10, 10, p50, p99, p50, 1, rate == 100 ? 57.5 : 2);
    }

    @Test
    void theWorstRateWithNotifyOnDecidesEachModesGoals() {
        List<BenchMatrix.Target> targets = BenchMatrix.idleTargets(List.of(
                idle("Global", true, 1, 4, 20), idle("Global", true, 100, 8, 60),
                idle("Global", false, 1, 500, 990)));
        assertThat(targets).hasSize(2);
        assertThat(targets.get(0).ratio()).isEqualTo(8);
        assertThat(targets.get(0).met()).isTrue();
        assertThat(targets.get(0).goalText()).isEqualTo("< 10");
        assertThat(targets.get(1).ratio()).isEqualTo(60);
        assertThat(targets.get(1).met()).isFalse();
        assertThat(targets.get(1).detail()).contains("1/s: 20.0", "100/s: 60.0");
        // the commits the producer waited for, beside the late starts they may explain
        assertThat(targets.get(0).detail()).doesNotContain("insert+commit");
        assertThat(targets.get(1).detail()).contains("slowest insert+commit: 1/s: 2.0, 100/s: 57.5 ms");
    }

    @Test
    void ratioTargetsStillNeedToReachTheirGoal() {
        assertThat(new BenchMatrix.Target("r", 0.7, 0.6, "").met()).isTrue();
        assertThat(new BenchMatrix.Target("r", 0.5, 0.6, "").met()).isFalse();
        assertThat(new BenchMatrix.Target("r", 0.5, 0.6, "").goalText()).isEqualTo(">= 0.60");
        // 0.597 must not read as 0.60 beside a goal of 0.60
        assertThat(new BenchMatrix.Target("r", 0.5969, 0.6, "").measuredText()).isEqualTo("0.597");
        assertThat(new BenchMatrix.Target("l", 19.44, 50, "", true).measuredText()).isEqualTo("19.44");
        assertThat(new BenchMatrix.Target("l", Double.NaN, 10, "", true).met()).isFalse();
    }

    @Test
    void notifyCostComparesSingleRowSqlProducersOnAgainstOff() {
        List<EnqueueBench.Result> runs = List.of(
                new EnqueueBench.Result("SQL INSERT", true, 16, 1, 2, 1000, 500, 10, Double.NaN),
                new EnqueueBench.Result("SQL INSERT", false, 16, 1, 2, 2000, 1000, 10, Double.NaN),
                new EnqueueBench.Result("SQL INSERT", true, 16, 100, 2, 9000, 4500, 10, Double.NaN));
        assertThat(BenchReport.notifyCost(runs))
                .contains("SQL INSERT, one job per transaction, jobs/s with NOTIFY on / off: 16 producers 0.50.")
                .doesNotContain("HTTP");
    }

    @Test
    void theBatchBodyHoldsTheJobsAskedFor() {
        String body = HttpProducer.body(3, java.time.Instant.parse("2026-11-24T00:00:00Z"));
        assertThat(body).startsWith("{\"jobs\":[{\"type\":\"noop\",\"dueAt\":\"2026-11-24T00:00:00Z\"}");
        assertThat(body.split("noop", -1)).hasSize(4);
    }
}
