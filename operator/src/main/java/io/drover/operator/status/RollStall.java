package io.drover.operator.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A roll or a scale that has stopped moving: a wanted executor pod (ordinal below the desired
 * count, not being deleted) that has not been ready for the progress deadline. The StatefulSet
 * controller replaces or adds pods one at a time and waits for each to be ready, so such a pod
 * holds the rest up; without a deadline Progressing stayed True for good, and a `kubectl wait`
 * or a GitOps tool waiting for it to end waited for ever (a Deployment's progressDeadlineSeconds
 * has the same use). Why it is not ready is Ready's reason (PodProblems).
 */
public final class RollStall {
    /** The pod that holds the roll up, and since when it has not been ready. */
    public record Stall(String pod, Instant since) {
    }

    private RollStall() {
    }

    /** The wanted pod not ready for longest, if that is at least {@code deadline}. */
    public static Optional<Stall> find(List<Pod> pods, int desired, Instant now, Duration deadline) {
        return pods.stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null && ordinal(p) >= 0 && ordinal(p) < desired)
                .map(RollStall::unreadySince)
                .flatMap(Optional::stream)
                .filter(s -> !s.since().plus(deadline).isAfter(now))
                .min(Comparator.comparing(Stall::since));
    }

    /** Since when the pod has not been ready: its Ready condition's last transition, or its creation. */
    private static Optional<Stall> unreadySince(Pod pod) {
        String name = pod.getMetadata().getName();
        List<PodCondition> conditions = pod.getStatus() == null ? null : pod.getStatus().getConditions();
        PodCondition ready = conditions == null ? null
                : conditions.stream().filter(c -> "Ready".equals(c.getType())).findFirst().orElse(null);
        if (ready != null && "True".equals(ready.getStatus())) {
            return Optional.empty();
        }
        Instant since = instant(ready == null ? null : ready.getLastTransitionTime());
        if (since == null) {
            since = instant(pod.getMetadata().getCreationTimestamp());
        }
        return since == null ? Optional.empty() : Optional.of(new Stall(name, since));
    }

    /** The pod's ordinal in its StatefulSet (the number after the last '-'), or -1. */
    private static int ordinal(Pod pod) {
        String name = pod.getMetadata().getName();
        try {
            return Integer.parseInt(name.substring(name.lastIndexOf('-') + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static Instant instant(String timestamp) {
        try {
            return timestamp == null ? null : Instant.parse(timestamp);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
