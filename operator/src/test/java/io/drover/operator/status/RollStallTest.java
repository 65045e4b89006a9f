package io.drover.operator.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RollStallTest {
    private static final Instant NOW = Instant.parse("2026-11-29T01:00:00Z");
    private static final Duration DEADLINE = Duration.ofMinutes(10);

    @Test
    void theWantedPodNotReadyLongestPastTheDeadlineHoldsTheRollUp() {
        List<Pod> pods = List.of(pod("x-0", "True", "2026-11-29T00:00:00Z"), pod("x-1", "False", "2026-11-29T00:40:00Z"),
                pod("x-2", "False", "2026-11-29T00:45:00Z"));
        assertThat(RollStall.find(pods, 3, NOW, DEADLINE)).contains(new RollStall.Stall("x-1", Instant.parse("2026-11-29T00:40:00Z")));
    }

    @Test
    void aPodNotReadyForLessThanTheDeadlineIsNotAStall() {
        assertThat(RollStall.find(List.of(pod("x-0", "False", "2026-11-29T00:55:00Z")), 1, NOW, DEADLINE)).isEmpty();
        assertThat(RollStall.find(List.of(pod("x-0", "True", "2026-11-28T00:00:00Z")), 1, NOW, DEADLINE)).isEmpty();
    }

    @Test
    void podsBeyondTheWantedCountOrBeingDeletedAreNotWaitedFor() {
        Pod leaving = pod("x-0", "False", "2026-11-29T00:00:00Z");
        leaving.getMetadata().setDeletionTimestamp("2026-11-29T00:59:00Z");
        assertThat(RollStall.find(List.of(leaving, pod("x-1", "False", "2026-11-29T00:00:00Z")), 1, NOW, DEADLINE)).isEmpty();
    }

    @Test
    void aPodWithoutAReadyConditionCountsFromItsCreation() {
        Pod pending = new PodBuilder().withNewMetadata().withName("x-0").withCreationTimestamp("2026-11-29T00:30:00Z").endMetadata()
                .withNewStatus().withPhase("Pending").endStatus().build();
        assertThat(RollStall.find(List.of(pending), 1, NOW, DEADLINE)).contains(new RollStall.Stall("x-0", Instant.parse("2026-11-29T00:30:00Z")));
    }

    private static Pod pod(String name, String ready, String since) {
        return new PodBuilder().withNewMetadata().withName(name).withCreationTimestamp("2026-11-28T00:00:00Z").endMetadata()
                .withNewStatus().withPhase("Running").addNewCondition().withType("Ready").withStatus(ready)
                .withLastTransitionTime(since).endCondition().endStatus().build();
    }
}
