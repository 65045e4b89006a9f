package io.drover.operator.reconcile;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What counts as a change made outside the operator, and how often it is undone. */
class OutsideChangesTest {
    private static StatefulSet sts(int replicas, String image, Map<String, String> templateAnnotations) {
        return new StatefulSetBuilder().withNewMetadata().withName("jobs").endMetadata()
                .withNewSpec().withReplicas(replicas)
                .withNewTemplate().withNewMetadata().withAnnotations(templateAnnotations).endMetadata()
                .withNewSpec().addNewContainer().withName("executor").withImage(image).endContainer().endSpec()
                .endTemplate().endSpec().build();
    }

    @Test
    void theCountAndTheTemplatesAnnotationsAreNoOutsideChange() {
        StatefulSet stored = sts(3, "drover:1", Map.of("kubectl.kubernetes.io/restartedAt", "2026-11-27T01:00:00Z"));
        assertThat(OutsideChanges.differ(sts(5, "drover:1", Map.of("drover.io/config-hash", "a")), stored)).isFalse();
        assertThat(OutsideChanges.differ(sts(3, "miner:1", Map.of()), stored)).isTrue();
        assertThat(stored.getSpec().getReplicas()).as("the cached object is not changed").isEqualTo(3);
        assertThat(stored.getSpec().getTemplate().getMetadata().getAnnotations()).hasSize(1);
    }

    @Test
    void oneRestoreEveryFiveMinutesAtMost() {
        OutsideChanges changes = new OutsideChanges();
        Instant t0 = Instant.parse("2026-11-27T01:00:00Z");
        StatefulSet stored = sts(3, "drover:1", Map.of());
        assertThat(changes.mayRestore("a", t0, stored)).isTrue();
        StatefulSet written = sts(3, "drover:1", Map.of());
        OutsideChanges.markRestoring(written, t0);
        assertThat(changes.mayRestore("a", t0.plusSeconds(1), stored)).as("marked, not yet written: no restore yet").isTrue();
        changes.restored("a", t0);
        assertThat(changes.mayRestore("a", t0.plusSeconds(299), stored)).isFalse();
        assertThat(changes.mayRestore("b", t0.plusSeconds(299), stored)).as("another cluster").isTrue();
        assertThat(changes.mayRestore("a", t0.plus(OutsideChanges.QUIET), stored)).isTrue();

        // An operator that restarted (or a new leader) reads the last restore off the StatefulSet.
        OutsideChanges restarted = new OutsideChanges();
        assertThat(written.getMetadata().getAnnotations()).containsEntry(OutsideChanges.RESTORED_AT, t0.toString());
        assertThat(restarted.mayRestore("a", t0.plusSeconds(299), written)).isFalse();
        assertThat(restarted.mayRestore("a", t0.plus(OutsideChanges.QUIET), written)).isTrue();
        written.getMetadata().getAnnotations().put(OutsideChanges.RESTORED_AT, "yesterday");
        assertThat(restarted.mayRestore("a", t0, written)).as("an annotation that is not an instant").isTrue();
    }

    @Test
    void aVersionFoundUnchangedIsNotComparedAgainUntilItsSpecOrTheDeclaredOneChanges() {
        OutsideChanges changes = new OutsideChanges();
        StatefulSet stored = sts(3, "drover:1", Map.of());
        stored.getMetadata().setUid("sts-1");
        stored.getMetadata().setGeneration(4L);
        String v4 = OutsideChanges.version(stored, "hash-a");
        assertThat(changes.knownUnchanged("a", v4)).isFalse();
        changes.foundUnchanged("a", v4);
        assertThat(changes.knownUnchanged("a", v4)).isTrue();
        assertThat(changes.knownUnchanged("b", v4)).as("another cluster").isFalse();
        assertThat(changes.knownUnchanged("a", OutsideChanges.version(stored, "hash-b"))).as("the declared spec changed").isFalse();
        stored.getMetadata().setGeneration(5L); // kubectl edit, set image, scale: any write of the spec
        assertThat(changes.knownUnchanged("a", OutsideChanges.version(stored, "hash-a"))).as("its spec was written").isFalse();
        stored.getMetadata().setGeneration(4L);
        stored.getMetadata().setUid("sts-2"); // deleted and created again, by someone else
        assertThat(changes.knownUnchanged("a", OutsideChanges.version(stored, "hash-a"))).as("a new object").isFalse();
    }
}
