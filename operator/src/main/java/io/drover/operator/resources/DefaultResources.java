package io.drover.operator.resources;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;

/**
 * Container resources when the spec gives none: one executor per c5.2xlarge (8 vCPU, 16 GiB).
 * The requests leave about 1 vCPU and 4 GiB of the node to the kubelet, the system daemons and
 * the node's other pods (an EKS c5.2xlarge has ~7.9 vCPU and ~14.5 GiB allocatable). No CPU
 * limit: throttling a dispatcher adds latency to every job, and the request already reserves
 * the node; a memory limit equal to the request makes the pod Guaranteed-like on memory.
 */
public final class DefaultResources {
    private DefaultResources() {
    }

    public static ResourceRequirements c5TwoXLarge() {
        return new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity("7"))
                .addToRequests("memory", new Quantity("12Gi"))
                .addToLimits("memory", new Quantity("12Gi"))
                .build();
    }
}
