package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.api.v1alpha1.PlacementSpec;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;

import java.util.List;

/**
 * Node placement of executor pods. Default: a required node affinity on the well-known
 * instance-type label (c5 family), and a best-effort spread over nodes so one node's loss
 * takes as few executors as possible.
 */
public final class PodPlacement {
    public static final String INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type";
    public static final List<String> C5_FAMILY = List.of("c5.large", "c5.xlarge", "c5.2xlarge", "c5.4xlarge",
            "c5.9xlarge", "c5.12xlarge", "c5.18xlarge", "c5.24xlarge", "c5.metal");

    private PodPlacement() {
    }

    public static void apply(ExecutorCluster ec, PodSpecBuilder pod) {
        PlacementSpec p = ec.getSpec().placement == null ? new PlacementSpec() : ec.getSpec().placement;
        Affinity affinity = p.affinity != null ? p.affinity : instanceTypeAffinity(p.instanceTypes == null ? C5_FAMILY : p.instanceTypes);
        pod.withAffinity(affinity);
        if (p.nodeSelector != null && !p.nodeSelector.isEmpty()) {
            pod.withNodeSelector(p.nodeSelector);
        }
        if (p.tolerations != null) {
            pod.withTolerations(p.tolerations);
        }
        if (p.spreadAcrossNodes == null || p.spreadAcrossNodes) {
            pod.withTopologySpreadConstraints(new TopologySpreadConstraintBuilder()
                    .withMaxSkew(1)
                    .withTopologyKey("kubernetes.io/hostname")
                    .withWhenUnsatisfiable("ScheduleAnyway")
                    .withNewLabelSelector().withMatchLabels(Labels.selector(ec)).endLabelSelector()
                    .build());
        }
    }

    private static Affinity instanceTypeAffinity(List<String> instanceTypes) {
        if (instanceTypes.isEmpty()) {
            return null;
        }
        return new AffinityBuilder()
                .withNewNodeAffinity()
                .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm()
                .addNewMatchExpression().withKey(INSTANCE_TYPE_LABEL).withOperator("In").withValues(instanceTypes).endMatchExpression()
                .endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution()
                .endNodeAffinity()
                .build();
    }
}
