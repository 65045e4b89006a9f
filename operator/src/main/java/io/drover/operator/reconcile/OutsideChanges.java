package io.drover.operator.reconcile;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetSpec;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Changes made to an executor StatefulSet by someone other than the operator (kubectl edit or
 * set image, another controller), and how often the operator undoes them.
 *
 * <p>Found by comparing the stored spec with the API server's dry run of the declared one, so
 * the defaults the API server fills in on both sides are no change. Two things are left out of
 * the comparison: the node count (the operator's own scaling, or KEDA's, which the declared
 * StatefulSet already carries over) and the pod template's annotations (kubectl rollout restart
 * and tools such as reloaders add their own; the operator's next write of the template drops
 * them, as before). Everything else of the spec is the ExecutorCluster's to say.
 *
 * <p>At most one restore per cluster within {@link #QUIET}: a mutating webhook that changes the
 * StatefulSet differently at each write (or skips dry runs) would otherwise have every pass
 * restore it, and roll the fleet, again and again.
 *
 * <p>A comparison costs the API server a dry-run update of the whole StatefulSet, and while pods
 * come and go a cached StatefulSet is often a version behind, which the dry run refuses (409). So
 * a StatefulSet found unchanged is not compared again until its generation or the declared spec
 * changes: any write of its spec, by anyone, raises the generation; its status (pods coming and
 * going) does not.
 */
final class OutsideChanges {
    static final Duration QUIET = Duration.ofMinutes(5);
    /** On the StatefulSet: when the operator last restored it (an instant), kept until its next full write. */
    static final String RESTORED_AT = "drover.io/restored-at";
    private final Map<String, Instant> lastRestore = new ConcurrentHashMap<>();
    /**
     * Per cluster uid, the StatefulSet version last found unchanged ({@link #version}). One short
     * string per cluster this operator process has seen (and a count, below): a deleted
     * cluster's stay, which costs less than the bookkeeping to drop them.
     */
    private final Map<String, String> unchangedAt = new ConcurrentHashMap<>();
    /** Per cluster uid, the dry runs made for a comparison in this process (ExecutorClusterReconcilerTest counts them). */
    private final Map<String, Long> comparisons = new ConcurrentHashMap<>();

    /** The stored StatefulSet's uid and generation, with the declared spec's hash: what a comparison's answer holds for. */
    static String version(StatefulSet current, String declaredSpecHash) {
        return current.getMetadata().getUid() + "/" + current.getMetadata().getGeneration() + "/" + declaredSpecHash;
    }

    /** Whether this version was compared already and found unchanged: no need to ask the API server again. */
    boolean knownUnchanged(String clusterUid, String version) {
        return version.equals(unchangedAt.get(clusterUid));
    }

    /** A dry run is about to be made for a comparison. */
    void comparing(String clusterUid) {
        comparisons.merge(clusterUid, 1L, Long::sum);
    }

    long comparisons(String clusterUid) {
        return comparisons.getOrDefault(clusterUid, 0L);
    }

    void foundUnchanged(String clusterUid, String version) {
        unchangedAt.put(clusterUid, version);
    }

    /** Whether the stored spec differs from the declared one as the API server would store it, count and template annotations aside. */
    static boolean differ(StatefulSet declaredAsStored, StatefulSet current) {
        return !comparable(declaredAsStored.getSpec(), current).equals(comparable(current.getSpec(), current));
    }

    /** A copy (never the informer's cached object, which others read) with the parts left out set alike. */
    private static StatefulSetSpec comparable(StatefulSetSpec spec, StatefulSet current) {
        var copy = spec.toBuilder().withReplicas(current.getSpec().getReplicas());
        if (spec.getTemplate() != null && spec.getTemplate().getMetadata() != null) {
            copy.editTemplate().editMetadata().withAnnotations(Map.of()).endMetadata().endTemplate();
        }
        return copy.build();
    }

    /**
     * Whether the cluster's StatefulSet may be restored now: its last restore, if any, was
     * {@link #QUIET} ago, by this process's memory or by the StatefulSet's {@link #RESTORED_AT}
     * (so an operator that restarts, or a new leader, does not restore again at once).
     */
    boolean mayRestore(String clusterUid, Instant now, StatefulSet current) {
        lastRestore.values().removeIf(at -> !at.plus(QUIET).isAfter(now));
        Instant recorded = restoredAt(current);
        return !lastRestore.containsKey(clusterUid) && (recorded == null || !recorded.plus(QUIET).isAfter(now));
    }

    /**
     * Records a restore on the StatefulSet about to be written; {@link #restored} once the write
     * succeeded (a failed write is no restore: the next pass may restore at once).
     */
    static void markRestoring(StatefulSet desired, Instant now) {
        var annotations = desired.getMetadata().getAnnotations() == null ? new java.util.LinkedHashMap<String, String>()
                : new java.util.LinkedHashMap<>(desired.getMetadata().getAnnotations());
        annotations.put(RESTORED_AT, now.toString());
        desired.getMetadata().setAnnotations(annotations);
    }

    /** Remembers a restore the API server took. */
    void restored(String clusterUid, Instant now) {
        lastRestore.put(clusterUid, now);
    }

    private static Instant restoredAt(StatefulSet current) {
        var annotations = current.getMetadata().getAnnotations();
        String at = annotations == null ? null : annotations.get(RESTORED_AT);
        try {
            return at == null ? null : Instant.parse(at);
        } catch (java.time.format.DateTimeParseException e) {
            return null; // not ours to trust: as if there were none
        }
    }
}
