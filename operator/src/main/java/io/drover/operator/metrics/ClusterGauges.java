package io.drover.operator.metrics;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.api.v1alpha1.ExecutorClusterStatus;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the operator knows of each ExecutorCluster, as gauges for alerting on what the executors
 * cannot report themselves: a node that never started has no metrics of its own, and only the
 * operator knows the autoscaler's ceiling and the Bottleneck it diagnosed.
 * <ul>
 *   <li>{@code drover_cluster_nodes_wanted}, {@code drover_cluster_nodes_ready}</li>
 *   <li>{@code drover_cluster_bottleneck{reason}}: 1 for the Bottleneck condition's current reason</li>
 * </ul>
 * Tagged {@code namespace} and {@code drover_cluster} (the operator's PodMonitor keeps them:
 * honorLabels). Clusters are reconciled every figuresInterval; one not seen for
 * {@link #STALE_AFTER} (deleted, or the operator lost it) reads NaN, which no alert compares
 * true, and its gauges are removed after {@link #FORGET_AFTER}.
 */
@ApplicationScoped
public class ClusterGauges {
    static final Duration STALE_AFTER = Duration.ofMinutes(2);
    static final Duration FORGET_AFTER = Duration.ofMinutes(10);

    private final MeterRegistry registry;
    private final Clock clock;
    private final Map<String, Cluster> clusters = new ConcurrentHashMap<>();

    @jakarta.inject.Inject
    public ClusterGauges(MeterRegistry registry) {
        this(registry, Clock.systemUTC());
    }

    ClusterGauges(MeterRegistry registry, Clock clock) {
        this.registry = registry;
        this.clock = clock;
    }

    /** Records the status just written for the cluster. */
    public void record(ExecutorCluster ec, ExecutorClusterStatus status) {
        Instant now = clock.instant();
        forgetStale(now);
        String namespace = ec.getMetadata().getNamespace();
        String name = ec.getMetadata().getName();
        Cluster c = clusters.computeIfAbsent(namespace + "/" + name, k -> newCluster(Tags.of("namespace", namespace, "drover_cluster", name)));
        c.seen = now;
        c.wanted = status.desiredReplicas == null ? 0 : status.desiredReplicas;
        c.ready = status.readyReplicas == null ? 0 : status.readyReplicas;
        String bottleneck = status.conditions == null ? null : status.conditions.stream()
                .filter(cond -> io.drover.operator.status.Conditions.BOTTLENECK.equals(cond.getType())).map(io.fabric8.kubernetes.api.model.Condition::getReason)
                .findFirst().orElse(null);
        if (!java.util.Objects.equals(bottleneck, c.bottleneck)) {
            if (c.bottleneckMeter != null) {
                registry.remove(c.bottleneckMeter);
                c.meters.remove(c.bottleneckMeter);
            }
            c.bottleneck = bottleneck;
            c.bottleneckMeter = bottleneck == null ? null
                    : c.register(Gauge.builder("drover.cluster.bottleneck", c, x -> x.fresh(clock.instant()) ? 1 : Double.NaN)
                    .tags(c.tags.and("reason", bottleneck)).description("1 for the reason of the cluster's Bottleneck condition"));
        }
    }

    private Cluster newCluster(Tags tags) {
        Cluster c = new Cluster(tags);
        c.seen = clock.instant();
        c.register(Gauge.builder("drover.cluster.nodes.wanted", c, x -> x.fresh(clock.instant()) ? x.wanted : Double.NaN)
                .tags(tags).description("Executor nodes the cluster wants now (spec or autoscaler)"));
        c.register(Gauge.builder("drover.cluster.nodes.ready", c, x -> x.fresh(clock.instant()) ? x.ready : Double.NaN)
                .tags(tags).description("Executor nodes ready"));
        return c;
    }

    private void forgetStale(Instant now) {
        clusters.values().removeIf(c -> {
            boolean forget = c.seen.isBefore(now.minus(FORGET_AFTER));
            if (forget) {
                c.meters.forEach(registry::remove);
            }
            return forget;
        });
    }

    private final class Cluster {
        final Tags tags;
        final List<Meter.Id> meters = new ArrayList<>();
        volatile Instant seen;
        volatile double wanted;
        volatile double ready;
        volatile String bottleneck;
        Meter.Id bottleneckMeter;

        Cluster(Tags tags) {
            this.tags = tags;
        }

        boolean fresh(Instant now) {
            return !seen.isBefore(now.minus(STALE_AFTER));
        }

        Meter.Id register(Gauge.Builder<Cluster> gauge) {
            Meter.Id id = gauge.register(registry).getId();
            meters.add(id);
            return id;
        }
    }
}
