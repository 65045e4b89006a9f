package io.drover.operator.metrics;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.api.v1alpha1.ExecutorClusterStatus;
import io.drover.operator.testing.Clusters;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ClusterGaugesTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MutableClock clock = new MutableClock();
    private final ClusterGauges gauges = new ClusterGauges(registry, clock);
    private final ExecutorCluster ec = cluster();

    @Test
    void nodesWantedAndReadyFollowTheStatus() {
        gauges.record(ec, status(3, 1, "PoolSaturated"));
        assertThat(gauge("drover.cluster.nodes.wanted")).isEqualTo(3);
        assertThat(gauge("drover.cluster.nodes.ready")).isEqualTo(1);
        gauges.record(ec, status(3, 3, "PoolSaturated"));
        assertThat(gauge("drover.cluster.nodes.ready")).isEqualTo(3);
    }

    /** For DroverAutoscalerSilent: 1 while KEDA owns the node count, 0 once autoscaling is turned off. */
    @Test
    void theAutoscaledGaugeFollowsTheSpec() {
        gauges.record(ec, status(1, 1, "Idle"));
        assertThat(gauge("drover.cluster.autoscaled")).as("spec.autoscaling absent").isZero();
        ExecutorCluster autoscaled = Clusters.parse(Clusters.yaml("payments", "autoscaling:\n  enabled: true\n"));
        autoscaled.getMetadata().setNamespace("team");
        gauges.record(autoscaled, status(0, 0, "Idle"));
        assertThat(gauge("drover.cluster.autoscaled")).isEqualTo(1);
        clock.advance(ClusterGauges.STALE_AFTER.plusSeconds(1));
        assertThat(gauge("drover.cluster.autoscaled")).as("not reconciled: no alert compares NaN true").isNaN();
    }

    @Test
    void theBottleneckGaugeCarriesTheCurrentReasonOnly() {
        gauges.record(ec, status(1, 1, "PoolSaturated"));
        gauges.record(ec, status(1, 1, "ScalingCapped"));
        var reasons = registry.find("drover.cluster.bottleneck").gauges().stream().map(g -> g.getId().getTag("reason")).toList();
        assertThat(reasons).containsExactly("ScalingCapped");
        assertThat(registry.get("drover.cluster.bottleneck").tag("reason", "ScalingCapped").gauge().value()).isEqualTo(1);
    }

    /** For DroverClusterDegraded: 1 while Degraded is True, 0 once it clears, one series per cluster. */
    @Test
    void theDegradedGaugeFollowsTheCondition() {
        gauges.record(ec, status(1, 1, "Idle", "False", "AsExpected"));
        assertThat(registry.get("drover.cluster.degraded").tag("reason", "AsExpected").gauge().value()).isZero();
        gauges.record(ec, status(1, 1, "Idle", "True", "ImageNotAllowed"));
        var series = registry.find("drover.cluster.degraded").gauges();
        assertThat(series).singleElement().satisfies(g -> {
            assertThat(g.getId().getTag("reason")).isEqualTo("ImageNotAllowed");
            assertThat(g.value()).isEqualTo(1);
        });
        gauges.record(ec, status(1, 1, "Idle", "False", "AsExpected"));
        assertThat(registry.find("drover.cluster.degraded").gauges()).singleElement()
                .satisfies(g -> assertThat(g.value()).isZero());
        clock.advance(ClusterGauges.STALE_AFTER.plusSeconds(1));
        assertThat(registry.get("drover.cluster.degraded").gauge().value()).isNaN();
    }

    @Test
    void aClusterNoLongerReconciledReadsNaNThenGoes() {
        gauges.record(ec, status(2, 0, "Idle"));
        clock.advance(ClusterGauges.STALE_AFTER.plusSeconds(1));
        assertThat(gauge("drover.cluster.nodes.ready")).as("no alert compares NaN true").isNaN();
        clock.advance(ClusterGauges.FORGET_AFTER);
        ExecutorCluster other = cluster();
        other.getMetadata().setName("other");
        gauges.record(other, status(1, 1, "Idle"));
        assertThat(registry.find("drover.cluster.nodes.ready").tag("drover_cluster", "payments").gauge()).isNull();
        assertThat(registry.find("drover.cluster.bottleneck").tag("drover_cluster", "payments").gauge()).isNull();
    }

    /** Passes every 5 minutes (a long secretRecheckInterval while blocked): the values hold between them. */
    @Test
    void aClusterReconciledSeldomKeepsItsValuesBetweenPasses() {
        ClusterGauges seldom = new ClusterGauges(registry, clock, java.time.Duration.ofMinutes(5));
        seldom.record(ec, status(2, 0, "Idle", "True", "SecretNotFound"));
        clock.advance(java.time.Duration.ofMinutes(5).plusSeconds(10));
        assertThat(registry.get("drover.cluster.degraded").gauge().value()).as("between two passes").isEqualTo(1);
        assertThat(seldom.staleAfter()).isEqualTo(java.time.Duration.ofMinutes(10).plusSeconds(30));
        clock.advance(java.time.Duration.ofMinutes(6));
        assertThat(registry.get("drover.cluster.degraded").gauge().value()).as("no pass for twice as long").isNaN();
    }

    private double gauge(String name) {
        return registry.get(name).tag("namespace", "team").tag("drover_cluster", "payments").gauge().value();
    }

    private static ExecutorClusterStatus status(int wanted, int ready, String bottleneck) {
        return status(wanted, ready, bottleneck, "False", "AsExpected");
    }

    private static ExecutorClusterStatus status(int wanted, int ready, String bottleneck, String degraded, String degradedReason) {
        ExecutorClusterStatus s = new ExecutorClusterStatus();
        s.desiredReplicas = wanted;
        s.readyReplicas = ready;
        s.conditions = List.of(new ConditionBuilder().withType("Bottleneck").withStatus("True").withReason(bottleneck).build(),
                new ConditionBuilder().withType("Degraded").withStatus(degraded).withReason(degradedReason).build());
        return s;
    }

    private static ExecutorCluster cluster() {
        ExecutorCluster ec = Clusters.parse(Clusters.yaml("payments", ""));
        ec.getMetadata().setNamespace("team");
        return ec;
    }

    static final class MutableClock extends Clock {
        private Instant now = Instant.parse("2026-11-23T00:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
