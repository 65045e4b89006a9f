package io.drover.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.model.annotation.LabelSelector;
import io.fabric8.kubernetes.model.annotation.StatusReplicas;

import java.util.ArrayList;
import java.util.List;

/** Observed state, written only by the operator. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ExecutorClusterStatus {
    @JsonPropertyDescription("The metadata.generation this status describes.")
    public Long observedGeneration;

    @StatusReplicas
    @JsonPropertyDescription("Executor pods that exist.")
    public Integer replicas;

    @JsonPropertyDescription("Executor pods wanted now: spec.replicas, or the autoscaler's choice while autoscaling.")
    public Integer desiredReplicas;

    @JsonPropertyDescription("Executor pods that are ready.")
    public Integer readyReplicas;

    @JsonPropertyDescription("Executor pods running the current configuration.")
    public Integer updatedReplicas;

    @LabelSelector
    @JsonPropertyDescription("Label selector of the executor pods (for the scale subresource).")
    public String selector;

    @JsonPropertyDescription("Ready executor pods over wanted ones, e.g. 2/3 (for kubectl get).")
    public String nodes;

    @JsonPropertyDescription("Live figures of the fleet, read from the executors every figuresInterval.")
    public FleetStatus fleet;

    @JsonPropertyDescription("Ready, Progressing, Degraded, Autoscaling and Bottleneck, following Kubernetes condition conventions.")
    public List<Condition> conditions = new ArrayList<>();
}
