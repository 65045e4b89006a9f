package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;

/**
 * The executor API is closed unless a token opens it. When an ExecutorCluster names no
 * apiTokenSecret, the operator generates one Secret per cluster, once, with a read-write token
 * ({@code token}) and a read-only one ({@code readToken}); producers read the token they need
 * from it. It is owned by the cluster (deleted with it) and never rewritten.
 */
public final class ApiTokens {
    public static final String TOKEN_KEY = "token";
    public static final String READ_TOKEN_KEY = "readToken";
    private static final SecureRandom RANDOM = new SecureRandom();

    private ApiTokens() {
    }

    public static Secret build(ExecutorCluster ec) {
        return new SecretBuilder()
                .withNewMetadata()
                .withName(Names.apiTokens(ec))
                .withNamespace(ec.getMetadata().getNamespace())
                .withLabels(labels(ec))
                .endMetadata()
                .withType("Opaque")
                .withStringData(Map.of(TOKEN_KEY, token(), READ_TOKEN_KEY, token()))
                .build();
    }

    /**
     * The cluster's labels only. Not opted in for executors (Labels.SECRET_OPT_IN): another
     * ExecutorCluster of the namespace must not be able to name these tokens as its apiTokenSecret.
     */
    private static Map<String, String> labels(ExecutorCluster ec) {
        return Labels.all(ec);
    }

    /** 256 random bits, URL-safe. */
    private static String token() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
