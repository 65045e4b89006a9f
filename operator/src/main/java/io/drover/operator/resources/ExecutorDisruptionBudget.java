package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.DisruptionBudgetSpec;
import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;

/**
 * Node drains stop at most maxUnavailable executors at once; each hands its queued jobs back.
 * An executor that is not ready (its database unreachable, still starting, crash-looping) may
 * always be evicted ({@code unhealthyPodEvictionPolicy: AlwaysAllow}): it runs no job a drain
 * could cut that a restart would not, and under the default (IfHealthyBudget) a fleet with too
 * few ready nodes refuses every eviction, so a node drain, and a cluster upgrade with it, hangs
 * until someone deletes the pods by hand, exactly when the fleet already has trouble.
 */
public final class ExecutorDisruptionBudget {
    static final String ALWAYS_ALLOW = "AlwaysAllow";

    private ExecutorDisruptionBudget() {
    }

    public static boolean wanted(ExecutorCluster ec) {
        DisruptionBudgetSpec d = ec.getSpec().disruptionBudget;
        return d == null || d.enabled == null || d.enabled;
    }

    public static PodDisruptionBudget build(ExecutorCluster ec) {
        DisruptionBudgetSpec d = ec.getSpec().disruptionBudget;
        int maxUnavailable = d == null || d.maxUnavailable == null ? DisruptionBudgetSpec.DEFAULT_MAX_UNAVAILABLE : d.maxUnavailable;
        return new PodDisruptionBudgetBuilder()
                .withNewMetadata().withName(Names.disruptionBudget(ec)).withNamespace(ec.getMetadata().getNamespace())
                .withLabels(Labels.all(ec)).endMetadata()
                .withNewSpec()
                .withMaxUnavailable(new IntOrString(maxUnavailable))
                .withUnhealthyPodEvictionPolicy(ALWAYS_ALLOW)
                .withNewSelector().withMatchLabels(Labels.selector(ec)).endSelector()
                .endSpec()
                .build();
    }
}
