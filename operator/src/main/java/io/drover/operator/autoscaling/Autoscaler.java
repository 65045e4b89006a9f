package io.drover.operator.autoscaling;

import io.drover.operator.api.v1alpha1.AutoscalingSpec;
import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.resources.Names;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Keeps an ExecutorCluster's KEDA objects in line with spec.autoscaling. KEDA is optional: when
 * its CRDs are missing, the cluster runs spec.replicas and the Autoscaling condition says why.
 */
public final class Autoscaler {
    /** Whether KEDA now owns the replica count, and the words for the Autoscaling condition. */
    public record Outcome(boolean active, boolean kedaMissing, String reason, String message) {
    }

    private Autoscaler() {
    }

    public static boolean wanted(ExecutorCluster ec) {
        AutoscalingSpec a = ec.getSpec().autoscaling;
        return a != null && Boolean.TRUE.equals(a.enabled);
    }

    public static boolean kedaInstalled(KubernetesClient client) {
        var crds = client.apiextensions().v1().customResourceDefinitions();
        return crds.withName(KedaObjects.SCALED_OBJECT_CRD).get() != null
                && crds.withName(KedaObjects.TRIGGER_AUTHENTICATION_CRD).get() != null;
    }

    /** @param apply server-side applies an owned object (owner reference set by the caller) */
    public static Outcome reconcile(KubernetesClient client, ExecutorCluster ec, Consumer<HasMetadata> apply) {
        boolean keda = kedaInstalled(client);
        if (!wanted(ec)) {
            if (keda) {
                delete(client, ec);
            }
            return new Outcome(false, !keda, "Disabled", "spec.autoscaling.enabled is false: " + fixed(ec));
        }
        if (!keda) {
            return new Outcome(false, true, "KedaNotInstalled",
                    "KEDA is not installed (no CRD " + KedaObjects.SCALED_OBJECT_CRD + "): " + fixed(ec));
        }
        apply.accept(KedaObjects.triggerAuthentication(ec));
        apply.accept(KedaObjects.scaledObject(ec));
        AutoscalingSpec a = ec.getSpec().autoscaling;
        String target = a.minReplicas + "-" + a.maxReplicas + " nodes, " + a.targetBacklogPerNode + " due jobs per node";
        GenericKubernetesResource so = scaledObjects(client, ec).withName(Names.scaledObject(ec)).get();
        Map<String, Object> ready = readyCondition(so);
        if (ready != null && "False".equals(ready.get("status"))) {
            return new Outcome(false, false, "ScaledObjectNotReady",
                    "KEDA ScaledObject " + Names.scaledObject(ec) + " is not ready: " + ready.get("message"));
        }
        return new Outcome(true, false, "KedaScaling", "KEDA scales the StatefulSet on the due-job backlog: " + target);
    }

    private static String fixed(ExecutorCluster ec) {
        return "running spec.replicas=" + ec.getSpec().replicas + " nodes";
    }

    private static void delete(KubernetesClient client, ExecutorCluster ec) {
        scaledObjects(client, ec).withName(Names.scaledObject(ec)).delete();
        client.genericKubernetesResources(KedaObjects.API_VERSION, "TriggerAuthentication")
                .inNamespace(ec.getMetadata().getNamespace()).withName(Names.triggerAuthentication(ec)).delete();
    }

    private static io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<GenericKubernetesResource,
            io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
            io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>> scaledObjects(KubernetesClient client, ExecutorCluster ec) {
        return client.genericKubernetesResources(KedaObjects.API_VERSION, "ScaledObject").inNamespace(ec.getMetadata().getNamespace());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> readyCondition(GenericKubernetesResource so) {
        if (so == null || !(so.getAdditionalProperties().get("status") instanceof Map<?, ?> status)) {
            return null;
        }
        if (!(status.get("conditions") instanceof List<?> conditions)) {
            return null;
        }
        return conditions.stream().filter(c -> c instanceof Map<?, ?> m && "Ready".equals(m.get("type")))
                .map(c -> (Map<String, Object>) c).findFirst().orElse(null);
    }
}
