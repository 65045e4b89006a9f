package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The objects a cluster writes are named after it (Names), so a name can already be taken: by
 * the user's own Service or ConfigMap, or by another cluster's object (cluster "x" has the
 * Service "x-nodes", cluster "x-nodes" a Service of that name too). The operator writes and
 * deletes only what it owns: an object that exists without this cluster's controller reference
 * is left as it is, and the cluster is blocked, naming it. (A forced server-side apply took such
 * objects over: it merged the executors' selector into a user's Service and gave it an owner
 * reference, so deleting the cluster deleted the user's Service.)
 */
public final class Ownership {
    private Ownership() {
    }

    /** An object a reconciliation is about to write: a kind with a Java type, or KEDA's by API version. */
    public record Target(Class<? extends HasMetadata> type, String apiVersion, String kind, String name) {
        public static Target of(Class<? extends HasMetadata> type, String name) {
            return new Target(type, null, type.getSimpleName(), name);
        }

        public static Target generic(String apiVersion, String kind, String name) {
            return new Target(null, apiVersion, kind, name);
        }
    }

    /** Why the cluster may not write these objects, naming each one taken by someone else; empty if none is. */
    public static Optional<String> taken(KubernetesClient client, ExecutorCluster ec, List<Target> writes) {
        List<String> taken = new ArrayList<>();
        boolean allLeaving = true;
        for (Target t : writes) {
            HasMetadata existing = get(client, ec, t);
            if (existing != null && !ownedBy(existing, ec)) {
                boolean leaving = existing.getMetadata().getDeletionTimestamp() != null;
                allLeaving &= leaving;
                taken.add(t.kind() + " " + t.name() + (leaving ? leaving(existing) : " exists and is not this cluster's"));
            }
        }
        if (taken.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(String.join("; ", taken) + ": the operator writes only objects it created for this cluster;"
                + (allLeaving ? " it writes its own once those are gone"
                : " rename the ExecutorCluster, or remove or rename those objects"));
    }

    /**
     * An object of the name that is being deleted: most often an earlier cluster's of the same
     * name, deleted and created again, whose object waits for a finalizer (a ScaledObject for
     * KEDA's, while KEDA's operator is down). "Exists and is not this cluster's; rename" sent the
     * user after the wrong thing: it goes by itself once its finalizers are removed.
     */
    private static String leaving(HasMetadata existing) {
        List<String> finalizers = existing.getMetadata().getFinalizers();
        return " is being deleted (since " + existing.getMetadata().getDeletionTimestamp() + ")"
                + (finalizers == null || finalizers.isEmpty() ? ""
                : ", waiting for its finalizers " + finalizers + ", which the controllers that added them remove"
                + (finalizers.stream().anyMatch(f -> f.contains("keda")) ? " (KEDA's: is KEDA's operator running?)" : ""));
    }

    /** Deletes the object if this cluster owns it; leaves anyone else's alone. */
    public static void deleteIfOwned(KubernetesClient client, ExecutorCluster ec, Target target) {
        HasMetadata existing = get(client, ec, target);
        if (existing != null && ownedBy(existing, ec)) {
            client.resource(existing).delete();
        }
    }

    public static boolean ownedBy(HasMetadata object, ExecutorCluster ec) {
        return object.getMetadata().getOwnerReferences() != null && object.getMetadata().getOwnerReferences().stream()
                .anyMatch(r -> Boolean.TRUE.equals(r.getController()) && ec.getMetadata().getUid().equals(r.getUid()));
    }

    private static HasMetadata get(KubernetesClient client, ExecutorCluster ec, Target t) {
        String ns = ec.getMetadata().getNamespace();
        return t.type() != null ? client.resources(t.type()).inNamespace(ns).withName(t.name()).get()
                : client.genericKubernetesResources(t.apiVersion(), t.kind()).inNamespace(ns).withName(t.name()).get();
    }
}
