package io.drover.e2e;

import io.fabric8.kubernetes.client.KubernetesClientException;
import org.awaitility.Awaitility;

import java.nio.file.Path;
import java.util.Optional;

/** What e2e/run.sh tells the suite about the cluster, the images and the database. */
record E2EEnvironment(String executorImage, String operatorImage, String chaosImage, String flowableImage, String dbHost, int dbPort,
                      String jdbcUrl, String dbUser, String dbPassword, String receiverHost,
                      Optional<String> containerdSocket, Optional<String> fakeNode, Optional<String> operatorSetJson,
                      Optional<String> dbStop, Optional<String> dbStart, Path bin, Path repo) {

    static E2EEnvironment fromEnv() {
        // Every suite starts here. The API server of a 2-core test cluster can time out a request
        // while pods start and stop: a wait that polls it asks again after a timeout, a dropped
        // connection, 429 or a 5xx instead of failing the scenario on one slow answer (one that
        // never succeeds still fails, naming the error); any other answer (403, 404, 422) fails it.
        Awaitility.ignoreExceptionsByDefaultMatching(e -> e instanceof KubernetesClientException k
                && (k.getCode() == 0 || k.getCode() == 429 || k.getCode() >= 500));
        return new E2EEnvironment(required("E2E_EXECUTOR_IMAGE"), required("E2E_OPERATOR_IMAGE"),
                required("E2E_CHAOS_IMAGE"), required("E2E_FLOWABLE_IMAGE"), required("E2E_DB_HOST"), Integer.parseInt(required("E2E_DB_PORT")),
                required("E2E_DB_JDBC_URL"), required("E2E_DB_USER"), required("E2E_DB_PASSWORD"),
                required("E2E_RECEIVER_HOST"), optional("E2E_CONTAINERD_SOCK"), optional("E2E_FAKE_NODE"),
                optional("E2E_OPERATOR_SET_JSON"), optional("E2E_DB_STOP"), optional("E2E_DB_START"),
                Path.of(required("E2E_BIN")), Path.of(required("E2E_REPO")));
    }

    private static String required(String name) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            throw new IllegalStateException(name + " is not set: run the suite with `make e2e` (e2e/run.sh)");
        }
        return v;
    }

    private static Optional<String> optional(String name) {
        return Optional.ofNullable(System.getenv(name)).filter(v -> !v.isBlank());
    }

    String bin(String name) {
        return bin.resolve(name).toString();
    }
}
