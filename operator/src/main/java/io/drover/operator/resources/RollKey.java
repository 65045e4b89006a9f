package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;

/**
 * The key of an ExecutorCluster's roll hash: the operator fingerprints the values the executors
 * read from Secrets (a password, an API token, a CA bundle) with an HMAC under this key, so the
 * fleet rolls when a value changes and only then. The fingerprint sits in the pod template,
 * which anyone who may read StatefulSets can see; keyed, it tells them nothing of a value, where
 * a plain hash of a password could be checked against guesses offline.
 *
 * <p>One Secret per cluster, generated once, owned by the cluster and immutable: the API server
 * refuses an edit of its key, so it changes only when someone deletes it, and a new key means a
 * new fingerprint: the fleet rolls once.
 */
public final class RollKey {
    public static final String KEY = "key";
    private static final SecureRandom RANDOM = new SecureRandom();

    private RollKey() {
    }

    public static Secret build(ExecutorCluster ec) {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        return new SecretBuilder()
                .withNewMetadata()
                .withName(Names.rollKey(ec))
                .withNamespace(ec.getMetadata().getNamespace())
                // Not opted in for executors (Labels.SECRET_OPT_IN): no cluster may name it.
                .withLabels(Labels.all(ec))
                .endMetadata()
                .withType("Opaque")
                .withImmutable(true)
                .withData(Map.of(KEY, Base64.getEncoder().encodeToString(key)))
                .build();
    }

    /** The key a Secret of {@link #build} holds, or null when it holds none (someone replaced it with one of their own). */
    public static byte[] of(Secret secret) {
        String encoded = secret.getData() == null ? null : secret.getData().get(KEY);
        if (encoded == null) {
            return null;
        }
        try {
            byte[] key = Base64.getDecoder().decode(encoded);
            return key.length == 0 ? null : key;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
