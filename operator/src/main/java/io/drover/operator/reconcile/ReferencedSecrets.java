package io.drover.operator.reconcile;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.api.v1alpha1.ExecutorClusterSpec;
import io.drover.operator.api.v1alpha1.ExtraEnvVar;
import io.drover.operator.resources.Labels;
import io.drover.operator.resources.RollKey;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The Secrets an ExecutorCluster points at (database credentials, API token, the database's CA
 * bundle when it is a Secret, the env variables' secretKeyRefs), and the CA bundle's ConfigMap, which must exist. The operator
 * reads them to check that the keys exist and to fingerprint the values the executors read: a
 * rotated password changes the fingerprint, which rolls the executors so they reconnect with
 * it, while a change of anything else of the Secret (a label, an annotation, another key such
 * as a renewed certificate beside its CA) rolls nothing. The fingerprint is an HMAC under the
 * cluster's own key ({@link RollKey}), never a plain hash: it sits in the pod template, readable
 * by anyone who may read StatefulSets, and a plain hash of a password can be checked against
 * guesses offline. Values are held in memory for the fingerprint only, never written or logged.
 *
 * <p>Each Secret is read by name with {@code get} (no list, no watch, no cache of the
 * namespace's Secrets), and is used only if it opted in with the label
 * {@link Labels#SECRET_OPT_IN}{@code =true}. There is no informer to notice a rotation: the
 * operator reads them again every {@code drover.operator.secretRecheckInterval}.
 */
final class ReferencedSecrets {
    /** Either the referenced values (by "secret/key"), or what is missing. */
    record Result(SortedMap<String, String> values, String problemReason, String problemMessage) {
        boolean ok() {
            return problemReason == null;
        }

        @Override
        public String toString() { // never the values
            return ok() ? "Result[" + values.keySet() + "]" : "Result[" + problemReason + ": " + problemMessage + "]";
        }
    }

    private ReferencedSecrets() {
    }

    static Result read(KubernetesClient client, ExecutorCluster ec) {
        ExecutorClusterSpec spec = ec.getSpec();
        String ns = ec.getMetadata().getNamespace();
        SortedMap<String, String> values = new TreeMap<>();
        var creds = spec.database.credentialsSecret;
        Map<String, String> wanted = new TreeMap<>();
        wanted.put(creds.name + "/" + creds.usernameKeyOrDefault(), "spec.database.credentialsSecret");
        wanted.put(creds.name + "/" + creds.passwordKeyOrDefault(), "spec.database.credentialsSecret");
        if (spec.apiTokenSecret != null) {
            wanted.put(spec.apiTokenSecret.name + "/" + spec.apiTokenSecret.key, "spec.apiTokenSecret");
        }
        // The env variables' values the executor's configuration reads: checked for expressions below.
        java.util.Set<String> envKeys = new java.util.HashSet<>();
        if (spec.env != null) {
            for (int i = 0; i < spec.env.size(); i++) {
                var from = spec.env.get(i).valueFrom;
                if (from != null && from.secretKeyRef != null) {
                    String secretKey = from.secretKeyRef.name + "/" + from.secretKeyRef.key;
                    wanted.putIfAbsent(secretKey, "spec.env[" + i + "].valueFrom.secretKeyRef");
                    envKeys.add(secretKey);
                }
            }
        }
        var ca = spec.database.caBundle;
        if (ca != null && ca.secret != null) {
            wanted.put(ca.secret + "/" + ca.keyOrDefault(), "spec.database.caBundle");
        }
        if (ca != null && ca.configMap != null) {
            // Not a Secret and not part of the fingerprint (the mounted file follows a renewal
            // without a roll), but a missing one would leave pods stuck in ContainerCreating.
            var map = client.configMaps().inNamespace(ns).withName(ca.configMap).get();
            if (map == null) {
                return new Result(null, "ConfigMapNotFound",
                        "ConfigMap " + ns + "/" + ca.configMap + " named by spec.database.caBundle does not exist");
            }
            if ((map.getData() == null || !map.getData().containsKey(ca.keyOrDefault()))
                    && (map.getBinaryData() == null || !map.getBinaryData().containsKey(ca.keyOrDefault()))) {
                return new Result(null, "ConfigMapKeyNotFound", "ConfigMap " + ns + "/" + ca.configMap
                        + " named by spec.database.caBundle has no key '" + ca.keyOrDefault() + "'");
            }
        }
        Map<String, Secret> secrets = new TreeMap<>();
        for (var entry : wanted.entrySet()) {
            String name = entry.getKey().substring(0, entry.getKey().indexOf('/'));
            String key = entry.getKey().substring(name.length() + 1);
            Secret secret = secrets.computeIfAbsent(name, n -> client.secrets().inNamespace(ns).withName(n).get());
            if (secret == null) {
                return new Result(null, "SecretNotFound",
                        "Secret " + ns + "/" + name + " named by " + entry.getValue() + " does not exist");
            }
            Map<String, String> labels = secret.getMetadata().getLabels();
            if (labels == null || !"true".equals(labels.get(Labels.SECRET_OPT_IN))) {
                return new Result(null, "SecretNotOptedIn", "Secret " + ns + "/" + name + " named by " + entry.getValue()
                        + " is not labelled " + Labels.SECRET_OPT_IN + "=true; label it to let ExecutorClusters of this"
                        + " namespace use it: kubectl label secret " + name + " -n " + ns + " " + Labels.SECRET_OPT_IN + "=true");
            }
            String value = secret.getData() != null ? secret.getData().get(key) : null;
            String plain = value == null ? null : decoded(value);
            if (value == null && secret.getStringData() != null) {
                value = secret.getStringData().get(key);
                plain = value;
            }
            if (value == null) {
                return new Result(null, "SecretKeyNotFound",
                        "Secret " + ns + "/" + name + " named by " + entry.getValue() + " has no key '" + key + "'");
            }
            if (envKeys.contains(entry.getKey()) && ExtraEnvVar.expands(plain)) {
                // As for a plain value (the CRD refuses it there): the executor's configuration
                // would expand it to another setting's value, such as the API token.
                return new Result(null, "SecretValueRefused", "Secret " + ns + "/" + name + " key '" + key + "', named by "
                        + entry.getValue() + ": " + ExtraEnvVar.EXPRESSION_MESSAGE);
            }
            values.put(entry.getKey(), value);
        }
        return new Result(values, null, null);
    }

    /** A Secret's data value as the container gets it (data is base64; a value that is not is taken as it is). */
    private static String decoded(String base64) {
        try {
            return new String(java.util.Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return base64;
        }
    }

    /**
     * HMAC-SHA256 of "name=value" lines, in the map's order. Keyed so that the hash, which goes
     * where many may read it, cannot be checked against guessed values.
     */
    static String hmac(byte[] key, SortedMap<String, String> values) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            values.forEach((name, value) -> mac.update((name + "=" + value + "\n").getBytes(StandardCharsets.UTF_8)));
            return HexFormat.of().formatHex(mac.doFinal());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

}
