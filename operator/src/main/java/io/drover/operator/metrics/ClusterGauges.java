package io.drover.operator.metrics;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.api.v1alpha1.ExecutorClusterStatus;
import io.drover.operator.autoscaling.Autoscaler;
import io.drover.operator.status.Conditions;
import io.fabric8.kubernetes.api.model.Condition;
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
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * What the operator knows of each ExecutorCluster, as gauges for alerting on what the executors
 * cannot report themselves: a node that never started has no metrics of its own, and only the
 * operator knows the autoscaler's ceiling and the Bottleneck it diagnosed.
 * <ul>
 *   <li>{@code drover_cluster_nodes_wanted}, {@code drover_cluster_nodes_ready}</li>
 *   <li>{@code drover_cluster_bottleneck{reason}}: 1 for the Bottleneck condition's current reason</li>
 *   <li>{@code drover_cluster_degraded{reason}}: the Degraded condition, 1 (True) or 0 (False), for its
 *   current reason: the operator cannot apply the spec, or the pods cannot run</li>
 *   <li>{@code drover_cluster_autoscaled}: 1 while spec.autoscaling.enabled is true, else 0. At 0
 *   ready nodes only KEDA watches the backlog, and KEDA's operator keeps no status that says it
 *   is down (its ScaledObject stays Ready): the alert DroverAutoscalerSilent reads this beside
 *   KEDA's own metric for the cluster, which goes missing with it.</li>
 * </ul>
 * Tagged {@code namespace} and {@code drover_cluster} (the operator's PodMonitor keeps them:
 * honorLabels). Clusters are reconciled every figuresInterval; one not seen for
 * {@link #STALE_AFTER}, or twice the longer of figuresInterval and secretRecheckInterval and
 * 30 s if that is longer (deleted, or the operator lost it), reads NaN, which no alert compares
 * true, and its gauges are removed {@link #FORGET_AFTER} later.
 */
@ApplicationScoped
public class ClusterGauges {
    static final Duration STALE_AFTER = Duration.ofMinutes(2);
    static final Duration FORGET_AFTER = Duration.ofMinutes(10);

    private final MeterRegistry registry;
    private final Clock clock;
    private final Duration staleAfter;
    private final Duration forgetAfter;
    private final Map<String, Cluster> clusters = new ConcurrentHashMap<>();

    @jakarta.inject.Inject
    public ClusterGauges(MeterRegistry registry, io.drover.operator.config.OperatorConfig config) {
        this(registry, Clock.systemUTC(), longer(config.figuresInterval(), config.secretRecheckInterval()));
    }

    ClusterGauges(MeterRegistry registry, Clock clock) {
        this(registry, clock, Duration.ZERO);
    }

    /**
     * @param longestPass the longest time between two passes over a cluster (figuresInterval, or
     *                    secretRecheckInterval while a pass is blocked): a cluster reconciled that
     *                    seldom read NaN between passes, and the alerts' {@code for} never held
     */
    ClusterGauges(MeterRegistry registry, Clock clock, Duration longestPass) {
        this.registry = registry;
        this.clock = clock;
        this.staleAfter = longer(STALE_AFTER, longestPass.multipliedBy(2).plusSeconds(30));
        this.forgetAfter = longer(FORGET_AFTER, staleAfter.plus(FORGET_AFTER));
    }

    private static Duration longer(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** How long a cluster not reconciled keeps its values (then NaN). */
    Duration staleAfter() {
        return staleAfter;
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
        c.autoscaled = Autoscaler.wanted(ec) ? 1 : 0;
        c.bottleneck.follow(condition(status, Conditions.BOTTLENECK), cond -> 1);
        c.degraded.follow(condition(status, Conditions.DEGRADED),
                cond -> "True".equals(cond.getStatus()) ? 1 : 0);
    }

    private static Condition condition(ExecutorClusterStatus status, String type) {
        return Conditions.find(status.conditions, type);
    }

    private Cluster newCluster(Tags tags) {
        Cluster c = new Cluster(tags);
        c.seen = clock.instant();
        c.register(Gauge.builder("drover.cluster.nodes.wanted", c, x -> x.fresh(clock.instant()) ? x.wanted : Double.NaN)
                .tags(tags).description("Executor nodes the cluster wants now (spec or autoscaler)"));
        c.register(Gauge.builder("drover.cluster.nodes.ready", c, x -> x.fresh(clock.instant()) ? x.ready : Double.NaN)
                .tags(tags).description("Executor nodes ready"));
        c.register(Gauge.builder("drover.cluster.autoscaled", c, x -> x.fresh(clock.instant()) ? x.autoscaled : Double.NaN)
                .tags(tags).description("1 while spec.autoscaling.enabled is true (KEDA owns the node count), else 0"));
        c.bottleneck = new ReasonGauge(c, "drover.cluster.bottleneck", "1 for the reason of the cluster's Bottleneck condition");
        c.degraded = new ReasonGauge(c, "drover.cluster.degraded",
                "The cluster's Degraded condition (1 True, 0 False), tagged with its reason");
        return c;
    }

    private void forgetStale(Instant now) {
        clusters.values().removeIf(c -> {
            boolean forget = c.seen.isBefore(now.minus(forgetAfter));
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
        volatile double autoscaled;
        ReasonGauge bottleneck;
        ReasonGauge degraded;

        Cluster(Tags tags) {
            this.tags = tags;
        }

        boolean fresh(Instant now) {
            return !seen.isBefore(now.minus(staleAfter));
        }

        Meter.Id register(Gauge.Builder<?> gauge) {
            Meter.Id id = gauge.register(registry).getId();
            meters.add(id);
            return id;
        }
    }

    /**
     * One series for a condition's current reason: a new reason replaces the series (so an alert's
     * {@code max by} sees one value, never a stale reason beside the new one).
     */
    private final class ReasonGauge {
        private final Cluster cluster;
        private final String name;
        private final String description;
        private volatile double value;
        private String reason;
        private Meter.Id meter;

        ReasonGauge(Cluster cluster, String name, String description) {
            this.cluster = cluster;
            this.name = name;
            this.description = description;
        }

        /** The condition just written (null: none), and its value. */
        void follow(Condition condition,
                    ToDoubleFunction<Condition> valueOf) {
            String next = condition == null ? null : condition.getReason();
            value = condition == null ? 0 : valueOf.applyAsDouble(condition);
            if (Objects.equals(next, reason)) {
                return;
            }
            if (meter != null) {
                registry.remove(meter);
                cluster.meters.remove(meter);
            }
            reason = next;
            meter = next == null ? null : cluster.register(Gauge.builder(name, this,
                            g -> cluster.fresh(clock.instant()) ? g.value : Double.NaN)
                    .tags(cluster.tags.and("reason", next)).description(description));
        }
    }
}
