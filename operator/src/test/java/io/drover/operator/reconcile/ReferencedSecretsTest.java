package io.drover.operator.reconcile;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.SortedMap;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The roll hash's fingerprint of Secret values is keyed: whoever reads it in the pod template,
 * without the cluster's key, cannot check a guessed password against it.
 */
class ReferencedSecretsTest {
    private static final byte[] KEY_A = "a key of 32 bytes for cluster A.".getBytes(StandardCharsets.UTF_8);
    private static final byte[] KEY_B = "a key of 32 bytes for cluster B.".getBytes(StandardCharsets.UTF_8);

    @Test
    void theSameValuesUnderTwoKeysGiveUnrelatedFingerprints() {
        SortedMap<String, String> values = values("the-same-password");
        assertThat(ReferencedSecrets.hmac(KEY_A, values)).isNotEqualTo(ReferencedSecrets.hmac(KEY_B, values));
        assertThat(ReferencedSecrets.hmac(KEY_A, values)).as("the same key and values: the same fingerprint, no roll")
                .isEqualTo(ReferencedSecrets.hmac(KEY_A, values("the-same-password")));
    }

    @Test
    void theFingerprintIsNotAPlainHashOfTheValues() {
        SortedMap<String, String> values = values("hunter2");
        StringBuilder lines = new StringBuilder();
        values.forEach((name, value) -> lines.append(name).append('=').append(value).append('\n'));
        String fingerprint = ReferencedSecrets.hmac(KEY_A, values);
        assertThat(fingerprint).isNotEqualTo(ReferencedSecrets.sha256(lines.toString()))
                .isNotEqualTo(ReferencedSecrets.sha256(values.toString()));
        assertThat(ReferencedSecrets.hmac(KEY_A, values("hunter3"))).as("a rotated password rolls").isNotEqualTo(fingerprint);
    }

    @Test
    void aResultNeverPrintsItsValues() {
        var result = new ReferencedSecrets.Result(values("hunter2"), null, null);
        assertThat(result.toString()).doesNotContain("hunter2").contains("jobs-db/password");
    }

    private static SortedMap<String, String> values(String password) {
        SortedMap<String, String> values = new TreeMap<>();
        values.put("jobs-db/username", "drover");
        values.put("jobs-db/password", password);
        return values;
    }
}
