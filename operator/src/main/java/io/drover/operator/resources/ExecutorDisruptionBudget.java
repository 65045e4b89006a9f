package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.DisruptionBudgetSpec;
import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;

/** Node drains stop at most maxUnavailable executors at once; each hands its queued jobs back. */
public final class ExecutorDisruptionBudget {
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
                .withNewSelector().withMatchLabels(Labels.selector(ec)).endSelector()
                .endSpec()
                .build();
    }
}
