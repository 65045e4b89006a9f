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

    /** Executors a drain may stop at once when the spec names no number (the CRD's default). */
    public static final int DEFAULT_MAX_UNAVAILABLE = 1;

    @Default("" + DEFAULT_MAX_UNAVAILABLE)
    @Min(0)
    @JsonPropertyDescription("Ready executor pods that a drain may stop at the same time (executors that are not ready may always"
            + " be evicted). 0 refuses every eviction of a ready executor: a node drain then waits until someone deletes the pod.")
    public Integer maxUnavailable;
}
