package io.drover.operator.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Builds a condition list the Kubernetes way: lastTransitionTime moves only when a condition's
 * status changes, so "Ready since" stays meaningful across reconciliations.
 */
public final class Conditions {
    public static final String READY = "Ready";
    public static final String PROGRESSING = "Progressing";
    public static final String DEGRADED = "Degraded";
    public static final String AUTOSCALING = "Autoscaling";
    public static final String BOTTLENECK = "Bottleneck";

    private final List<Condition> previous;
    private final long generation;
    private final List<Condition> next = new ArrayList<>();

    public Conditions(List<Condition> previous, long generation) {
        this.previous = previous == null ? List.of() : previous;
        this.generation = generation;
    }

    public Conditions set(String type, boolean status, String reason, String message) {
        return set(type, status ? "True" : "False", reason, message);
    }

    /** With status "True", "False" or "Unknown". */
    public Conditions set(String type, String s, String reason, String message) {
        String since = previous.stream()
                // A condition someone else wrote may lack type or status: compared, never dereferenced.
                .filter(c -> type.equals(c.getType()) && Objects.equals(s, c.getStatus()))
                .map(Condition::getLastTransitionTime)
                .findFirst()
                .orElse(Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        next.removeIf(c -> type.equals(c.getType()));
        next.add(new ConditionBuilder().withType(type).withStatus(s).withReason(reason).withMessage(message)
                .withObservedGeneration(generation).withLastTransitionTime(since).build());
        return this;
    }

    /** The condition of {@code type} in a status's list, or null (the list may be null, or written by someone else). */
    public static Condition find(List<Condition> conditions, String type) {
        return conditions == null ? null
                : conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
    }

    public List<Condition> list() {
        return List.copyOf(next);
    }
}
