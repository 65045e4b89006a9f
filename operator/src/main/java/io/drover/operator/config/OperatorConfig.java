package io.drover.operator.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The operator's own settings ({@code drover.operator.*}, env {@code DROVER_OPERATOR_*}); the
 * Helm chart sets them. Which namespaces are watched is the SDK's
 * {@code QUARKUS_OPERATOR_SDK_NAMESPACES}.
 */
@ConfigMapping(prefix = "drover.operator")
public interface OperatorConfig {
    /** Executor image used when an ExecutorCluster names none: the one released with this operator. */
    @WithDefault("localhost/drover-executor:0.1.0")
    String executorImage();

    @WithDefault("IfNotPresent")
    String executorImagePullPolicy();

    /**
     * Image of the Flowable engine's nodes (spec.engine Flowable) when an ExecutorCluster names
     * none: the reference flowable-executor released with this operator.
     */
    @WithDefault("localhost/flowable-executor:0.1.0")
    String flowableImage();

    /** The default image of a cluster's engine. */
    default String defaultImage(io.drover.operator.api.v1alpha1.Engine engine) {
        return engine == io.drover.operator.api.v1alpha1.Engine.Flowable ? flowableImage() : executorImage();
    }

    /**
     * Images an ExecutorCluster may name in spec.image: exact references, repositories (any tag
     * or digest), or prefixes ending in '/'. Unset: any image (ImagePolicy).
     */
    Optional<List<String>> allowedImages();

    /** How often a cluster that wants autoscaling looks again for KEDA when it was missing. */
    @WithDefault("60s")
    Duration kedaRecheckInterval();

    /**
     * How long a deleted ScaledObject of a cluster whose autoscaling was turned off may wait for
     * KEDA's finalizer before the cluster is Degraded (ScaledObjectNotRemoved): KEDA's operator
     * removes it and its HPA within seconds when it runs; until then the HPA keeps the node count.
     */
    @WithDefault("5m")
    Duration kedaRemovalPatience();

    /**
     * How long a wanted executor pod may stay not ready while a roll or a scale is under way
     * before the cluster's Progressing turns False, ProgressDeadlineExceeded (with a Warning
     * event): the StatefulSet controller waits for that pod, so the roll has stopped. As a
     * Deployment's progressDeadlineSeconds: 10 minutes.
     */
    @WithDefault("10m")
    Duration progressDeadline();

    /**
     * How often each cluster's Secrets are read again (by name, with get), so a rotated
     * password rolls the executors. The operator has no Secret informer: it may not list or
     * watch Secrets (docs/security.md).
     */
    @WithDefault("60s")
    Duration secretRecheckInterval();

    /**
     * How often the operator reads each executor's figures (GET /q/drover/node) into the
     * cluster's status.fleet and its Bottleneck condition.
     */
    @WithDefault("15s")
    Duration figuresInterval();

    /** The operator's own namespace (the chart sets it from the pod): executors' NetworkPolicy admits it. */
    java.util.Optional<String> podNamespace();

    /**
     * Namespaces whose pods may scrape the executors' metrics (where Prometheus runs; the chart's
     * metrics.scrapeNamespaces): every executor NetworkPolicy admits them on the HTTP port, so a
     * PodMonitor works without each cluster listing them in spec.networkPolicy.from.
     */
    Optional<List<String>> scrapeNamespaces();

    LeaderElection leaderElection();

    interface LeaderElection {
        /** Several operator replicas may run; one reconciles, the others wait on the Lease. */
        @WithDefault("true")
        boolean enabled();

        @WithDefault("drover-operator")
        String leaseName();

        /** Defaults to the operator pod's namespace (env POD_NAMESPACE, set by the chart). */
        Optional<String> leaseNamespace();
    }
}
