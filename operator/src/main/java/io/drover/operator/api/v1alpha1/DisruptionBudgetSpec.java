package io.drover.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;

/** Voluntary disruptions (node drains) take at most maxUnavailable executors at a time. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DisruptionBudgetSpec {
    @Default("true")
    @JsonPropertyDescription("Create a PodDisruptionBudget for the executor pods.")
    public Boolean enabled;

    @Default("1")
    @Min(0)
    @JsonPropertyDescription("Executor pods that a drain may stop at the same time.")
    public Integer maxUnavailable;
}
