package io.drover.operator.autoscaling;

import io.drover.operator.api.v1alpha1.AutoscalingSpec;
import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.resources.Names;
import io.drover.operator.resources.Ownership;
import io.drover.operator.status.ApiServerMessages;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Keeps an ExecutorCluster's KEDA objects in line with spec.autoscaling, and says who owns the
 * StatefulSet's replica count.
 *
 * <p>The rule (docs/autoscaling.md): while autoscaling is enabled, or a KEDA HPA still scales the
 * StatefulSet, the operator never writes its replicas. When KEDA is missing or its ScaledObject
 * is not ready (KEDA marks it so on trigger errors, e.g. while the database is unreachable), the
 * fleet keeps its current size and the Autoscaling condition says why: writing spec.replicas
 * then would shrink a fleet that KEDA scaled up, on every database blip, and KEDA would scale it
 * up again (a fight). A new StatefulSet starts at minReplicas.
 */
public final class Autoscaler {
    /**
     * @param active       KEDA scales the cluster now
     * @param ownsReplicas the replica count belongs to KEDA (now, or again once it is fixed): the
     *                     operator must not write it
     * @param reason       the Autoscaling condition's reason, and {@code message} its message
     */
    public record Outcome(boolean active, boolean ownsReplicas, String reason, String message) {
    }

    /** The outcomes in which autoscaling is asked for and cannot work (ClusterStatus tells them apart). */
    public static final String KEDA_NOT_INSTALLED = "KedaNotInstalled";
    /** Autoscaling on, and another HorizontalPodAutoscaler scales the StatefulSet beside KEDA's. */
    public static final String CONFLICTING_AUTOSCALER = "ConflictingAutoscaler";
    public static final String SCALED_OBJECT_NOT_READY = "ScaledObjectNotReady";
    /**
     * The API server refused KEDA's objects (KEDA's webhook: another HPA or ScaledObject scales
     * the StatefulSet; an admission policy; a quota): someone must act (Degraded), and the rest
     * of the spec is applied all the same.
     */
    public static final String SCALED_OBJECT_REFUSED = "ScaledObjectRefused";
    /** KEDA's objects could not be written (an admission webhook down, a timeout): the rest of the spec is applied. */
    public static final String SCALED_OBJECT_NOT_WRITTEN = "ScaledObjectNotWritten";
    /** Autoscaling is off, and someone's own HPA scales the StatefulSet: the operator leaves the count to it. */
    public static final String SCALED_BY_ANOTHER_AUTOSCALER = "ScaledByAnotherAutoscaler";
    /**
     * Autoscaling is off, and the cluster's ScaledObject, deleted longer than kedaRemovalPatience
     * ago, still waits for KEDA's finalizer: KEDA's operator is not running, so its HPA keeps the
     * node count for good.
     */
    public static final String SCALED_OBJECT_NOT_REMOVED = "ScaledObjectNotRemoved";
    /** KEDA's ScaledObject carries its pause annotation: nobody scales the fleet meanwhile. */
    public static final String SCALED_OBJECT_PAUSED = "ScaledObjectPaused";
    /**
     * KEDA's HorizontalPodAutoscaler says it cannot scale (ScalingActive or AbleToScale False), while
     * the ScaledObject is Ready: most often KEDA's metrics server is down or unreachable from the
     * API server (FailedGetExternalMetric), which KEDA's operator does not see. It said KedaScaling.
     */
    public static final String KEDA_HPA_NOT_SCALING = "KedaHpaNotScaling";
    static final String PAUSED = "autoscaling.keda.sh/paused";
    static final String PAUSED_REPLICAS = "autoscaling.keda.sh/paused-replicas";

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

    /**
     * @param keda  whether KEDA is installed ({@link #kedaInstalled}, looked up once per pass)
     * @param removalPatience how long a deleted ScaledObject may wait for KEDA's finalizer before it is reported
     * @param apply server-side applies an owned object (owner reference set by the caller)
     */
    public static Outcome reconcile(KubernetesClient client, ExecutorCluster ec, boolean keda, Duration removalPatience,
                                    Consumer<HasMetadata> apply) {
        if (!wanted(ec)) {
            if (keda) {
                delete(client, ec);
            }
            var hpas = hpasOn(client, ec);
            // Read once: whose it is, and whether it waits for KEDA's finalizer.
            GenericKubernetesResource so = keda ? scaledObjects(client, ec).withName(Names.scaledObject(ec)).get() : null;
            String theirs = someoneElses(so, ec);
            if (theirs != null && hpas.stream().anyMatch(hpa -> kedasFor(hpa, ec))) {
                // The HPA of someone's own ScaledObject of the cluster's name, not one being removed.
                return new Outcome(false, true, SCALED_BY_ANOTHER_AUTOSCALER, "spec.autoscaling.enabled is false, and"
                        + " ScaledObject " + theirs + ", not this cluster's, scales the StatefulSet: the operator leaves the"
                        + " node count to it (spec.replicas is not applied)");
            }
            if (hpas.stream().anyMatch(hpa -> kedasFor(hpa, ec))) {
                String stuck = removalStuck(so, ec, removalPatience);
                if (stuck != null) {
                    return new Outcome(false, true, SCALED_OBJECT_NOT_REMOVED, stuck);
                }
                return new Outcome(false, true, "Disabling", "spec.autoscaling.enabled is false; KEDA's HPA still"
                        + " scales the StatefulSet and is being removed: the fleet keeps its current size until it is gone");
            }
            if (!hpas.isEmpty()) {
                // Someone's own HPA: writing spec.replicas would fight it at every pass.
                return new Outcome(false, true, SCALED_BY_ANOTHER_AUTOSCALER, "spec.autoscaling.enabled is false, and"
                        + " HorizontalPodAutoscaler " + hpas.getFirst().getMetadata().getName() + " scales the StatefulSet:"
                        + " the operator leaves the node count to it (spec.replicas is not applied)");
            }
            return new Outcome(false, false, "Disabled", "spec.autoscaling.enabled is false: running spec.replicas="
                    + ec.getSpec().replicas + " nodes");
        }
        if (!keda) {
            return new Outcome(false, true, KEDA_NOT_INSTALLED, "KEDA is not installed (no CRD "
                    + KedaObjects.SCALED_OBJECT_CRD + "): the fleet keeps its current size until it is");
        }
        try {
            apply.accept(KedaObjects.triggerAuthentication(ec));
            apply.accept(KedaObjects.scaledObject(ec));
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                throw e; // a conflict: the pass is retried with fresh data
            }
            if (!refused(e)) {
                // KEDA's admission webhook down (500 "failed calling webhook"), a timeout: the
                // pass failed here, before the StatefulSet, so a rotated password or an image fix
                // waited for KEDA to come back. Now the rest is applied, and the next pass, within
                // kedaRecheckInterval, writes KEDA's objects again. (The API server itself down
                // fails the StatefulSet's write too, and the pass.) Each pass first waits out the
                // client's retries of the failed write (about 20 s for a webhook refusing connections).
                String failure = "KEDA's objects for this cluster could not be written (" + e.getCode() + ": "
                        + ApiServerMessages.words(e) + "; is KEDA's admission webhook running?)";
                GenericKubernetesResource so = scaledObjects(client, ec).withName(Names.scaledObject(ec)).get();
                Map<String, Object> ready = so == null ? null : readyCondition(so);
                if (ready != null && "True".equals(String.valueOf(ready.get("status"))) && someoneElsesScaledObject(client, ec) == null) {
                    // KEDA goes on scaling with the object it has (a webhook pod restarting, an
                    // upgrade: even an unchanged apply passes through it): active, only a change
                    // of it waits; Degraded says so.
                    return new Outcome(true, true, SCALED_OBJECT_NOT_WRITTEN, failure + ": KEDA scales the StatefulSet"
                            + " with the ScaledObject it has, and a change of it waits; the rest of the spec is applied");
                }
                return new Outcome(false, true, SCALED_OBJECT_NOT_WRITTEN, failure + ": the fleet keeps its current size"
                        + " until they are; the rest of the spec is applied");
            }
            // Refused as written, it will be again: not a reason to hold back an image or a
            // setting the executors are waiting for (a failed pass would write nothing after it).
            return new Outcome(false, true, SCALED_OBJECT_REFUSED, "The API server refused KEDA's objects for this cluster ("
                    + e.getCode() + ": " + ApiServerMessages.words(e) + "): the fleet keeps its current size until it takes them"
                    + " (another HorizontalPodAutoscaler or ScaledObject on the StatefulSet? an admission policy?)");
        }
        var hpas = hpasOn(client, ec); // read once: someone else's beside KEDA's, and KEDA's own below
        var others = hpas.stream().filter(hpa -> !kedasFor(hpa, ec)).toList();
        if (!others.isEmpty()) {
            // Two HPAs on one target: Kubernetes scales it with neither (AmbiguousSelector), while
            // KEDA's ScaledObject may still say Ready.
            return new Outcome(false, true, CONFLICTING_AUTOSCALER, "HorizontalPodAutoscaler "
                    + others.getFirst().getMetadata().getName() + " scales the StatefulSet beside KEDA's, and Kubernetes then"
                    + " scales it with neither: delete it, or set spec.autoscaling.enabled to false to leave the node count to it;"
                    + " the fleet keeps its current size meanwhile");
        }
        AutoscalingSpec a = ec.getSpec().autoscaling;
        String target = a.minReplicas + "-" + a.maxReplicas + " nodes, " + a.targetBacklogPerNode + " jobs per node";
        GenericKubernetesResource so = scaledObjects(client, ec).withName(Names.scaledObject(ec)).get();
        Map<String, Object> ready = readyCondition(so);
        if (ready == null || !"True".equals(ready.get("status"))) {
            // No Ready condition at all: KEDA has not taken the object up. Its operator is not
            // running (uninstalled with its CRDs left, crash-looping), or it just got the object.
            // Counted as scaling, a cluster at minReplicas 0 said Ready while no node would ever
            // start for the jobs coming due.
            String why = ready == null ? "KEDA has not taken it up yet: is KEDA's operator running?"
                    : "Ready is " + ready.get("status") + ": " + ready.get("message");
            return new Outcome(false, true, SCALED_OBJECT_NOT_READY, "KEDA ScaledObject " + Names.scaledObject(ec)
                    + " is not ready (" + why + "): the fleet keeps its current size until it is");
        }
        String paused = pausedBy(so);
        if (paused != null) {
            // A maintenance pause, not a fault: KEDA keeps its Ready condition True meanwhile, so
            // a cluster at 0 nodes said Ready while nothing would wake it for the jobs coming due.
            return new Outcome(false, true, SCALED_OBJECT_PAUSED, "KEDA ScaledObject " + Names.scaledObject(ec)
                    + " is paused (" + paused + "): KEDA does not scale the fleet until the annotation is removed");
        }
        String notScaling = notScaling(hpas.stream().filter(hpa -> kedasFor(hpa, ec)).findFirst().orElse(null), Instant.now());
        if (notScaling != null) {
            return new Outcome(false, true, KEDA_HPA_NOT_SCALING, notScaling);
        }
        return new Outcome(true, true, "KedaScaling", "KEDA scales the StatefulSet on the jobs due and in hand: " + target);
    }

    /**
     * How long KEDA's HPA must have said it cannot scale before the cluster reports it: one failed
     * read of the metric (a new ScaledObject whose metric KEDA does not serve yet, a metrics server
     * restarting) is answered at the HPA's next sync, 15 s later.
     */
    static final Duration HPA_PATIENCE = Duration.ofMinutes(1);

    /**
     * Why KEDA's HPA {@code hpa} cannot scale, from its own conditions, or null if it can, has not
     * said yet, or said so less than {@link #HPA_PATIENCE} before {@code now}. ScalingDisabled is
     * not a fault: it is the HPA at zero nodes, where KEDA's operator scales to 1 by itself.
     */
    static String notScaling(io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler hpa, Instant now) {
        if (hpa == null || hpa.getStatus() == null || hpa.getStatus().getConditions() == null) {
            return null;
        }
        for (var c : hpa.getStatus().getConditions()) {
            if (("ScalingActive".equals(c.getType()) || "AbleToScale".equals(c.getType())) && "False".equals(c.getStatus())
                    && !"ScalingDisabled".equals(c.getReason()) && !recent(c.getLastTransitionTime(), now)) {
                String hint = "FailedGetExternalMetric".equals(c.getReason())
                        ? ": is KEDA's metrics server (keda-operator-metrics-apiserver) running, and reachable from the API server?" : "";
                return "KEDA's HorizontalPodAutoscaler " + hpa.getMetadata().getName() + " cannot scale the StatefulSet ("
                        + c.getType() + " False, " + c.getReason() + ": " + c.getMessage() + ")" + hint
                        + "; the fleet keeps its current size until it can";
            }
        }
        return null;
    }

    private static boolean recent(String transition, Instant now) {
        try {
            return transition != null && Instant.parse(transition).plus(HPA_PATIENCE).isAfter(now);
        } catch (java.time.format.DateTimeParseException e) {
            return false;
        }
    }

    /** KEDA's pause annotation on the ScaledObject, as written, or null when it is not paused. */
    static String pausedBy(GenericKubernetesResource so) {
        Map<String, String> annotations = so == null ? null : so.getMetadata().getAnnotations();
        if (annotations == null) {
            return null;
        }
        if (annotations.containsKey(PAUSED_REPLICAS)) {
            return PAUSED_REPLICAS + ": " + annotations.get(PAUSED_REPLICAS);
        }
        return "true".equalsIgnoreCase(annotations.get(PAUSED)) ? PAUSED + ": true" : null;
    }

    /** A refusal of the object as written (invalid, forbidden, denied by a webhook or a policy), as opposed to a failure to ask. */
    private static boolean refused(KubernetesClientException e) {
        return e.getCode() == 400 || e.getCode() == 403 || e.getCode() == 422;
    }

    /** The name of a ScaledObject of the cluster's name that the cluster does not own, or null. */
    private static String someoneElsesScaledObject(KubernetesClient client, ExecutorCluster ec) {
        return someoneElses(scaledObjects(client, ec).withName(Names.scaledObject(ec)).get(), ec);
    }

    /** The name of {@code so} (a ScaledObject of the cluster's name, or null) when the cluster does not own it, else null. */
    private static String someoneElses(GenericKubernetesResource so, ExecutorCluster ec) {
        if (so == null) {
            return null;
        }
        return io.drover.operator.resources.Ownership.ownedBy(so, ec) ? null : so.getMetadata().getName();
    }

    /**
     * Why KEDA's HPA is still there, when the cluster's ScaledObject {@code so} (null: none, or
     * KEDA not installed) was deleted longer than {@code patience} ago and still waits for a
     * finalizer (KEDA's: its operator removes the HPA, then the finalizer, within seconds when it
     * runs); else null (being removed).
     */
    private static String removalStuck(GenericKubernetesResource so, ExecutorCluster ec, Duration patience) {
        String deleted = so == null ? null : so.getMetadata().getDeletionTimestamp();
        if (deleted == null) {
            return null;
        }
        Instant since = Instant.parse(deleted);
        if (since.plus(patience).isAfter(Instant.now())) {
            return null;
        }
        return "spec.autoscaling.enabled is false, and ScaledObject " + so.getMetadata().getName() + ", deleted at " + deleted
                + ", still waits for its finalizers " + so.getMetadata().getFinalizers() + ": KEDA's operator, which removes"
                + " its HPA and then the finalizer, is not running (or cannot reach the API server). KEDA's HPA keeps scaling the"
                + " StatefulSet and the fleet keeps its current size (spec.replicas is not applied) until KEDA's operator runs"
                + " again; if KEDA was uninstalled, delete HorizontalPodAutoscaler keda-hpa-" + Names.scaledObject(ec)
                + " and remove the ScaledObject's finalizer";
    }

    /** The HorizontalPodAutoscalers that scale the cluster's StatefulSet (KEDA's, or someone's own). */
    static List<io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler> hpasOn(KubernetesClient client,
                                                                                             ExecutorCluster ec) {
        return client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ec.getMetadata().getNamespace())
                .list().getItems().stream().filter(hpa -> scalesTheStatefulSet(hpa, ec)).toList();
    }

    private static boolean scalesTheStatefulSet(io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler hpa,
                                                ExecutorCluster ec) {
        return hpa.getSpec() != null && hpa.getSpec().getScaleTargetRef() != null
                && "StatefulSet".equals(hpa.getSpec().getScaleTargetRef().getKind())
                && Names.statefulSet(ec).equals(hpa.getSpec().getScaleTargetRef().getName());
    }

    /**
     * KEDA's HPA for this cluster's ScaledObject (by KEDA's label, or its default name
     * keda-hpa-&lt;ScaledObject&gt;: the operator names none), scaling its StatefulSet. Not any
     * HPA on the StatefulSet: a user's own is {@link #SCALED_BY_ANOTHER_AUTOSCALER}, not a removal
     * that never ends.
     */
    static boolean kedasFor(io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler hpa, ExecutorCluster ec) {
        var meta = hpa.getMetadata();
        String scaledObject = Names.scaledObject(ec);
        boolean kedas = ("keda-hpa-" + scaledObject).equals(meta.getName())
                || (meta.getLabels() != null && scaledObject.equals(meta.getLabels().get("scaledobject.keda.sh/name")));
        return kedas && scalesTheStatefulSet(hpa, ec);
    }

    private static void delete(KubernetesClient client, ExecutorCluster ec) {
        for (Ownership.Target t : targets(ec)) {
            Ownership.deleteIfOwned(client, ec, t);
        }
    }

    /** The KEDA objects a cluster with autoscaling has. */
    public static List<Ownership.Target> targets(ExecutorCluster ec) {
        return List.of(Ownership.Target.generic(KedaObjects.API_VERSION, "ScaledObject", Names.scaledObject(ec)),
                Ownership.Target.generic(KedaObjects.API_VERSION, "TriggerAuthentication", Names.triggerAuthentication(ec)));
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
