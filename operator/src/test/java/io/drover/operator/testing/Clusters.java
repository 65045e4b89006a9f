package io.drover.operator.testing;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.resources.Labels;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;

import java.util.Map;

/** ExecutorCluster manifests as a user writes them: YAML text. */
public final class Clusters {
    private Clusters() {
    }

    /** The smallest valid spec, plus extra YAML lines under spec (which may bring their own database). */
    public static String yaml(String name, String extraSpec) {
        String database = extraSpec.contains("database:") ? "" : """
                  database:
                    host: db.example.internal
                    name: jobs
                    credentialsSecret:
                      name: jobs-db
                """;
        return """
                apiVersion: drover.io/v1alpha1
                kind: ExecutorCluster
                metadata:
                  name: %s
                spec:
                %s%s""".formatted(name, database, extraSpec.indent(2));
    }

    public static ExecutorCluster parse(String yaml) {
        return Serialization.unmarshal(yaml, ExecutorCluster.class);
    }

    /** Sends the YAML as is (like kubectl), so the API server, not Java types, judges it. */
    public static ExecutorCluster create(KubernetesClient client, String namespace, String yaml) {
        GenericKubernetesResource raw = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
        GenericKubernetesResource created = client.genericKubernetesResources("drover.io/v1alpha1", "ExecutorCluster")
                .inNamespace(namespace).resource(raw).create();
        return Serialization.unmarshal(Serialization.asJson(created), ExecutorCluster.class);
    }

    /** The database Secret, opted in for ExecutorClusters (Labels.SECRET_OPT_IN) as users are told to. */
    public static Secret dbSecret(KubernetesClient client, String namespace, String password) {
        return dbSecret(client, namespace, "jobs-db", password, true);
    }

    public static Secret dbSecret(KubernetesClient client, String namespace, String name, String password, boolean optedIn) {
        return client.secrets().inNamespace(namespace).resource(new SecretBuilder()
                .withNewMetadata().withName(name)
                .withLabels(optedIn ? Map.of(Labels.SECRET_OPT_IN, "true") : Map.of()).endMetadata()
                .withStringData(Map.of("username", "drover", "password", password))
                .build()).serverSideApply();
    }
}
