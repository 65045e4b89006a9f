package io.drover.operator.reconcile;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The RollingUpdate event's cause, from the hashes the last write left on the StatefulSet. */
class RollHashesTest {
    private static final RollHashes BEFORE = new RollHashes("c1", "settings1", "secrets1", "key-uid-1");

    private static Map<String, String> written(RollHashes hashes) {
        Map<String, String> annotations = new HashMap<>();
        hashes.annotate(annotations);
        return annotations;
    }

    @Test
    void eachCauseIsNamed() {
        Map<String, String> was = written(BEFORE);
        assertThat(new RollHashes("c2", "settings2", "secrets1", "key-uid-1").causeSince(was)).isEqualTo("the settings changed");
        assertThat(new RollHashes("c2", "settings1", "secrets2", "key-uid-1").causeSince(was))
                .isEqualTo("a referenced Secret changed (e.g. a rotated password or API token)");
        assertThat(new RollHashes("c2", "settings2", "secrets2", "key-uid-1").causeSince(was))
                .isEqualTo("the settings changed, and a referenced Secret changed (e.g. a rotated password or API token)");
        assertThat(new RollHashes("c1", "settings1", "secrets1", "key-uid-1").causeSince(was))
                .startsWith("the pod template changed");
    }

    @Test
    void aNewKeyIsNotCalledAChangedSecret() {
        // Deleting <name>-roll-key: a new key, so a new secrets hash, with every value as it was.
        assertThat(new RollHashes("c2", "settings1", "secrets2", "key-uid-2").causeSince(written(BEFORE)))
                .isEqualTo("the roll hash's key is new (its Secret was deleted); no Secret value need have changed");
    }

    @Test
    void aStatefulSetWrittenBeforeTheMarkerGetsTheHonestAmbiguity() {
        Map<String, String> was = written(BEFORE);
        was.remove(RollHashes.ROLL_KEY);
        assertThat(new RollHashes("c2", "settings1", "secrets2", "key-uid-1").causeSince(was))
                .isEqualTo("a referenced Secret changed, or this is the first roll by an operator version that fingerprints"
                        + " Secrets differently");
        assertThat(new RollHashes("c2", "settings1", "secrets1", "key-uid-1").causeSince(Map.of()))
                .as("an older StatefulSet without any hashes").startsWith("the pod template changed");
    }
}
