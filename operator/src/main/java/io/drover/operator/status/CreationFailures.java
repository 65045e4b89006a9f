package io.drover.operator.status;

import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Why executor pods are missing: the StatefulSet controller could not create them (a
 * ResourceQuota, a LimitRange, a PodSecurity level or an admission webhook refused them). No pod
 * exists to carry that cause ({@link PodProblems} reads pods), so it is only in the controller's
 * FailedCreate events on the StatefulSet, and a cluster used to say "0 of 2 executor nodes ready"
 * with no reason. Read only while pods are missing; only events of this StatefulSet (its uid)
 * seen in the last {@link #RECENT} and after the newest of its pods was created, so a refusal
 * that has since passed (a pod was created after it) is not reported.
 */
public final class CreationFailures {
    /** The condition reason. */
    public static final String REASON = "PodsNotCreated";
    /**
     * The StatefulSet controller retries with a back-off that reaches about 17 minutes, and
     * repeats of an event are recorded less often than they happen: a refusal still under way
     * can be this old. One that passed is told apart by a pod created after it.
     */
    static final Duration RECENT = Duration.ofMinutes(30);

    private CreationFailures() {
    }

    /** The StatefulSet's FailedCreate events, by field selector (no listing of the namespace's events). */
    public static List<Event> read(KubernetesClient client, StatefulSet sts) {
        return client.events().v1().events().inNamespace(sts.getMetadata().getNamespace())
                .withField("regarding.name", sts.getMetadata().getName())
                .withField("reason", "FailedCreate")
                .list().getItems();
    }

    /**
     * The latest recent refusal among the events, if fewer pods exist than the StatefulSet wants.
     *
     * @param pods the StatefulSet's pods that exist
     */
    public static Optional<PodProblems.Problem> find(StatefulSet sts, List<Pod> pods, List<Event> events, Instant now) {
        int wanted = sts.getSpec().getReplicas() == null ? 0 : sts.getSpec().getReplicas();
        int podsPresent = pods.size();
        if (podsPresent >= wanted) {
            return Optional.empty();
        }
        String uid = sts.getMetadata().getUid();
        Instant since = pods.stream().map(p -> instant(p.getMetadata().getCreationTimestamp()))
                .flatMap(Optional::stream).reduce(now.minus(RECENT), (a, b) -> a.isAfter(b) ? a : b);
        return events.stream()
                .filter(e -> "FailedCreate".equals(e.getReason()) && "Warning".equals(e.getType()))
                .filter(e -> e.getRegarding() != null && "StatefulSet".equals(e.getRegarding().getKind())
                        && Objects.equals(uid, e.getRegarding().getUid()))
                .filter(e -> lastSeen(e).filter(t -> t.isAfter(since)).isPresent())
                .max(Comparator.comparing(e -> lastSeen(e).orElseThrow()))
                .map(e -> new PodProblems.Problem(REASON, PodProblems.truncate((wanted - podsPresent) + " of " + wanted
                        + " executor pods cannot be created: " + PodProblems.oneLine(e.getNote()))));
    }

    /** When the event last happened: its series, its own time, or the core API's last timestamp. */
    static Optional<Instant> lastSeen(Event e) {
        return Stream.of(e.getSeries() == null ? null : micro(e.getSeries().getLastObservedTime()),
                        micro(e.getEventTime()), e.getDeprecatedLastTimestamp())
                .map(CreationFailures::instant).flatMap(Optional::stream).max(Comparator.naturalOrder());
    }

    private static String micro(MicroTime t) {
        return t == null ? null : t.getTime();
    }

    private static Optional<Instant> instant(String t) {
        if (t == null || t.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(t));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
