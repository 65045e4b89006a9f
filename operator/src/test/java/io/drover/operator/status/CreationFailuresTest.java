package io.drover.operator.status;

import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** FailedCreate events as the StatefulSet controller writes them, and when they are today's cause. */
class CreationFailuresTest {
    private static final Instant NOW = Instant.parse("2026-11-26T14:00:00Z");
    private static final StatefulSet STS = new StatefulSetBuilder().withNewMetadata().withName("jobs").withNamespace("ns")
            .withUid("uid-1").endMetadata().withNewSpec().withReplicas(3).endSpec().build();

    @Test
    void theLatestRecentRefusalNamesTheMissingPods() {
        List<Event> events = List.of(
                event("uid-1", "quota exceeded", NOW.minus(Duration.ofMinutes(5))),
                event("uid-1", "admission webhook \"policy.example.com\" denied the request:\n no root", NOW.minusSeconds(30)));
        assertThat(CreationFailures.find(STS, pods(NOW.minus(Duration.ofMinutes(20))), events, NOW)).hasValueSatisfying(p -> {
            assertThat(p.reason()).isEqualTo("PodsNotCreated");
            assertThat(p.message()).isEqualTo("2 of 3 executor pods cannot be created: admission webhook"
                    + " \"policy.example.com\" denied the request: no root");
        });
    }

    @Test
    void notTodaysCause() {
        Instant earlier = NOW.minus(Duration.ofHours(1));
        assertThat(CreationFailures.find(STS, pods(earlier, earlier, earlier), List.of(event("uid-1", "quota", NOW)), NOW))
                .as("every pod exists").isEmpty();
        assertThat(CreationFailures.find(STS, pods(), List.of(event("uid-1", "quota", NOW.minus(Duration.ofMinutes(31)))), NOW))
                .as("not seen for half an hour").isEmpty();
        assertThat(CreationFailures.find(STS, pods(), List.of(event("uid-0", "quota", NOW)), NOW))
                .as("an earlier StatefulSet of the same name").isEmpty();
        assertThat(CreationFailures.find(STS, pods(NOW.minusSeconds(60)), List.of(event("uid-1", "quota",
                NOW.minus(Duration.ofMinutes(5)))), NOW)).as("a pod was created after it: that refusal passed").isEmpty();
    }

    @Test
    void aRepeatedEventCountsFromItsLastOccurrence() {
        Event repeated = new EventBuilder(event("uid-1", "quota", NOW.minus(Duration.ofHours(1))))
                .withNewSeries().withCount(40).withLastObservedTime(new MicroTime(NOW.minusSeconds(20).toString()))
                .endSeries().build();
        assertThat(CreationFailures.find(STS, pods(), List.of(repeated), NOW)).isPresent();
    }

    /** Pods of the StatefulSet, created at the given times. */
    private static List<Pod> pods(Instant... created) {
        return java.util.Arrays.stream(created).map(t -> new PodBuilder().withNewMetadata().withName("jobs-" + t.getEpochSecond())
                .withCreationTimestamp(t.toString()).endMetadata().build()).toList();
    }

    private static Event event(String uid, String note, Instant last) {
        return new EventBuilder().withNewMetadata().withName("jobs." + last.toEpochMilli()).endMetadata()
                .withNewRegarding().withKind("StatefulSet").withName("jobs").withUid(uid).endRegarding()
                .withReason("FailedCreate").withType("Warning").withNote(note)
                .withDeprecatedLastTimestamp(last.toString()).build();
    }
}
