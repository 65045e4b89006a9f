package io.drover.operator.autoscaling;

import io.drover.operator.api.v1alpha1.AutoscalingSpec;
import io.drover.contract.SettingDefaults;
import io.drover.operator.api.v1alpha1.DatabaseSpec;
import io.drover.operator.api.v1alpha1.Engine;
import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.resources.ExecutorEnvironment;
import io.drover.operator.resources.KubeDurations;
import io.drover.operator.resources.Labels;
import io.drover.operator.resources.Names;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The KEDA objects of an autoscaled cluster, as generic resources: the operator does not
 * depend on KEDA's API types (KEDA may be absent), only on its v1alpha1 schema, which the
 * tests install from KEDA's own CRDs.
 */
public final class KedaObjects {
    public static final String API_VERSION = "keda.sh/v1alpha1";
    public static final String SCALED_OBJECT_CRD = "scaledobjects.keda.sh";
    public static final String TRIGGER_AUTHENTICATION_CRD = "triggerauthentications.keda.sh";

    private KedaObjects() {
    }

    /**
     * Scales the executor StatefulSet directly (not the ExecutorCluster): KEDA's HPA owns the
     * StatefulSet's replica count and the operator leaves it alone while autoscaling is on.
     */
    public static GenericKubernetesResource scaledObject(ExecutorCluster ec) {
        AutoscalingSpec a = ec.getSpec().autoscaling;
        int threads = ec.getSpec().threads == null ? Integer.parseInt(SettingDefaults.THREADS) : ec.getSpec().threads;
        boolean flowable = ec.getSpec().engine == Engine.Flowable;
        // The HPA takes the larger of the two counts of nodes: the backlog's (due and running
        // jobs per targetBacklogPerNode), and the running jobs' (per threads), so a fleet busy
        // with long jobs and an empty backlog keeps the nodes that run them.
        var backlog = trigger(ec, "due-backlog", flowable ? FlowableBacklogQuery.sql(ec.getSpec().schema, a, threads)
                : BacklogQuery.sql(ec.getSpec().schema, a, threads), a.targetBacklogPerNode, a.activationBacklog);
        var running = trigger(ec, "running-jobs", flowable ? FlowableBacklogQuery.runningSql(ec.getSpec().schema, threads)
                : BacklogQuery.runningSql(ec.getSpec().schema, threads), threads, 0);

        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("scaleTargetRef", Map.of("apiVersion", "apps/v1", "kind", "StatefulSet", "name", Names.statefulSet(ec)));
        spec.put("minReplicaCount", a.minReplicas);
        spec.put("maxReplicaCount", a.maxReplicas);
        spec.put("pollingInterval", KubeDurations.seconds(a.pollingInterval));
        spec.put("cooldownPeriod", KubeDurations.seconds(a.cooldownPeriod));
        spec.put("triggers", List.of(backlog, running));
        spec.put("advanced", Map.of("horizontalPodAutoscalerConfig", Map.of("behavior", Map.of("scaleDown",
                Map.of("stabilizationWindowSeconds", KubeDurations.seconds(a.scaleDownStabilizationWindow))))));
        return new GenericKubernetesResourceBuilder()
                .withApiVersion(API_VERSION).withKind("ScaledObject")
                .withMetadata(meta(ec, Names.scaledObject(ec)))
                .withAdditionalProperties(Map.of("spec", spec))
                .build();
    }

    /** A postgresql trigger on the cluster's database: nodes = ceil(the query's answer / target). */
    private static Map<String, Object> trigger(ExecutorCluster ec, String name, String query, long target, long activation) {
        DatabaseSpec db = ec.getSpec().database;
        Map<String, Object> trigger = new LinkedHashMap<>();
        trigger.put("type", "postgresql");
        trigger.put("name", name);
        trigger.put("metricType", "AverageValue");
        Map<String, Object> md = new LinkedHashMap<>();
        md.put("host", db.host);
        md.put("port", String.valueOf(db.portOrDefault()));
        md.put("dbName", db.name);
        // KEDA connects with pgx, which understands every libpq sslmode. verify-ca/verify-full
        // check the server against the CA file KEDA's own pod names in PGSSLROOTCERT (pgx reads
        // it; the trigger has no field for it): docs/security.md says how to mount the bundle.
        md.put("sslmode", ExecutorEnvironment.sslMode(db));
        md.put("query", query);
        md.put("targetQueryValue", String.valueOf(target));
        md.put("activationTargetQueryValue", String.valueOf(activation));
        trigger.put("metadata", md);
        trigger.put("authenticationRef", Map.of("name", Names.triggerAuthentication(ec)));
        return trigger;
    }

    /** User name and password from the cluster's database Secret; KEDA reads it, we never copy it. */
    public static GenericKubernetesResource triggerAuthentication(ExecutorCluster ec) {
        var creds = ec.getSpec().database.credentialsSecret;
        List<Map<String, Object>> refs = List.of(
                Map.of("parameter", "userName", "name", creds.name, "key", creds.usernameKeyOrDefault()),
                Map.of("parameter", "password", "name", creds.name, "key", creds.passwordKeyOrDefault()));
        return new GenericKubernetesResourceBuilder()
                .withApiVersion(API_VERSION).withKind("TriggerAuthentication")
                .withMetadata(meta(ec, Names.triggerAuthentication(ec)))
                .withAdditionalProperties(Map.of("spec", Map.of("secretTargetRef", refs)))
                .build();
    }


    private static io.fabric8.kubernetes.api.model.ObjectMeta meta(ExecutorCluster ec, String name) {
        return new ObjectMetaBuilder().withName(name).withNamespace(ec.getMetadata().getNamespace())
                .withLabels(Labels.all(ec)).build();
    }
}
