package io.drover.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** KEDA scaling of the node count on the jobs due and the jobs running (docs/autoscaling.md). */
@JsonInclude(JsonInclude.Include.NON_NULL)
// has() guards: the API server also checks the rule against the schema default {} itself.
@ValidationRule(value = "!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas",
        message = "autoscaling.minReplicas must not exceed autoscaling.maxReplicas", fieldPath = ".minReplicas")
public class AutoscalingSpec {
    /** Past this a backlog is found too late to matter; below it KEDA's seconds cannot overflow. */
    static final String MAX_POLLING_INTERVAL = "1h";
    /**
     * A duration of whole seconds: KEDA and the HPA take these in seconds, and 1500ms was cut to
     * 1 s without a word. (getMilliseconds is the whole duration's or its millisecond part
     * depending on the CEL library: whole seconds either way when it is a multiple of 1000.)
     */
    static final String WHOLE_SECONDS = "duration(self).getMilliseconds() % 1000 == 0";
    static final String MAX_COOLDOWN_PERIOD = "24h";
    /** The HorizontalPodAutoscaler refuses a stabilization window over 3600 s. */
    static final String MAX_STABILIZATION_WINDOW = "1h";

    @Default("false")
    @JsonPropertyDescription("Scale on the jobs due and running with KEDA (needs KEDA installed; without it, or while KEDA is broken, the fleet keeps its current size and the Autoscaling condition says why).")
    public Boolean enabled;

    @Default("1")
    @Min(0)
    @JsonPropertyDescription("Fewest nodes. 0 lets the cluster scale to zero when no job is due; the first due job wakes it (activationBacklog).")
    public Integer minReplicas;

    @Default("4")
    @Min(1)
    @Max(1000)
    @JsonPropertyDescription("Most nodes.")
    public Integer maxReplicas;

    @Default("1024")
    @Min(1)
    @JsonPropertyDescription("Jobs per node the autoscaler aims for: nodes = ceil((due jobs no node holds + jobs running) / targetBacklogPerNode). Running jobs count, so a fleet busy with long jobs is not scaled down under them.")
    public Integer targetBacklogPerNode;

    @Default("0")
    @Min(0)
    @JsonPropertyDescription("Backlog above which a cluster scaled to zero wakes up.")
    public Integer activationBacklog;

    @Default("15s")
    @Pattern(ExecutorClusterSpec.DURATION)
    @Size(max = 32)
    @JsonPropertyDescription("How often KEDA counts the backlog (whole seconds).")
    @ValidationRule(value = "duration(self) >= duration('1s')", message = "autoscaling.pollingInterval must be at least 1s")
    @ValidationRule(value = WHOLE_SECONDS, message = "autoscaling.pollingInterval must be whole seconds (KEDA and the HPA count in seconds)")
    @ValidationRule(value = "duration(self) <= duration('" + MAX_POLLING_INTERVAL + "')",
            message = "autoscaling.pollingInterval must be at most " + MAX_POLLING_INTERVAL)
    public String pollingInterval;

    @Default("5m")
    @Pattern(ExecutorClusterSpec.DURATION)
    @Size(max = 32)
    @JsonPropertyDescription("How long the backlog must stay at or below activationBacklog before scaling to zero (whole seconds).")
    @ValidationRule(value = "duration(self) >= duration('1s')", message = "autoscaling.cooldownPeriod must be at least 1s")
    @ValidationRule(value = WHOLE_SECONDS, message = "autoscaling.cooldownPeriod must be whole seconds (KEDA and the HPA count in seconds)")
    @ValidationRule(value = "duration(self) <= duration('" + MAX_COOLDOWN_PERIOD + "')",
            message = "autoscaling.cooldownPeriod must be at most " + MAX_COOLDOWN_PERIOD)
    public String cooldownPeriod;

    @Default("5m")
    @Pattern(ExecutorClusterSpec.DURATION)
    @Size(max = 32)
    @JsonPropertyDescription("How long a lower node count must be wanted before nodes are removed (the HPA's scale-down stabilization window; whole seconds). Shorter follows the backlog faster; longer rides out gaps between bursts.")
    @ValidationRule(value = "duration(self) >= duration('1s')", message = "autoscaling.scaleDownStabilizationWindow must be at least 1s")
    @ValidationRule(value = WHOLE_SECONDS, message = "autoscaling.scaleDownStabilizationWindow must be whole seconds (KEDA and the HPA count in seconds)")
    @ValidationRule(value = "duration(self) <= duration('" + MAX_STABILIZATION_WINDOW + "')",
            message = "autoscaling.scaleDownStabilizationWindow must be at most " + MAX_STABILIZATION_WINDOW
                    + " (the HorizontalPodAutoscaler's limit)")
    public String scaleDownStabilizationWindow;
}
