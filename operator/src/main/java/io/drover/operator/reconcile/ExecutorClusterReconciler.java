package io.drover.operator.reconcile;

import io.drover.contract.Causes;
import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.api.v1alpha1.Engine;
import io.drover.operator.api.v1alpha1.ExecutorClusterSpec;
import io.drover.operator.autoscaling.Autoscaler;
import io.drover.operator.config.OperatorConfig;
import io.drover.operator.figures.Bottleneck;
import io.drover.operator.figures.FigureScraper;
import io.drover.operator.figures.FleetFigures;
import io.drover.operator.figures.NodeReading;
import io.drover.operator.resources.ApiTokens;
import io.drover.operator.resources.ExecutorEnvironment;
import io.drover.operator.resources.ExecutorDisruptionBudget;
import io.drover.operator.resources.ExecutorNetworkPolicy;
import io.drover.operator.resources.ExecutorServices;
import io.drover.operator.resources.ExecutorStatefulSet;
import io.drover.operator.resources.Labels;
import io.drover.operator.resources.Names;
import io.drover.operator.resources.Ownership;
import io.drover.operator.resources.RollKey;
import io.drover.operator.status.ApiServerMessages;
import io.drover.operator.status.ClusterEvents;
import io.drover.operator.status.ClusterStatus;
import io.drover.operator.status.Conditions;
import io.drover.operator.status.CreationFailures;
import io.drover.operator.status.PodProblems;
import io.drover.operator.status.RollStall;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Reconciles an ExecutorCluster into: the executor
 * StatefulSet, a headless Service, an API/metrics Service, a PodDisruptionBudget and, when
 * autoscaling, KEDA's ScaledObject and TriggerAuthentication. Everything carries an owner
 * reference, so deleting the ExecutorCluster lets Kubernetes' garbage collector remove it all;
 * the operator has no finalizer and never touches the database.
 */
@ControllerConfiguration(name = "executorcluster",
        maxReconciliationInterval = @MaxReconciliationInterval(interval = 5, timeUnit = TimeUnit.MINUTES))
public class ExecutorClusterReconciler implements Reconciler<ExecutorCluster> {
    static final String FIELD_MANAGER = "drover-operator";
    /** Clusters whose settings ConfigMap of an older operator is gone (deleteSettingsConfigMapOnceUnused). */
    private final Set<String> settingsConfigMapGone = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Pod template hash of the StatefulSet spec the operator last wrote (replicas excluded). */
    static final String SPEC_HASH = "drover.io/spec-hash";
    /** What {@code kubectl rollout restart} sets on the pod template: see {@link #keepRolloutRestart}. */
    static final String ROLLOUT_RESTARTED_AT = "kubectl.kubernetes.io/restartedAt";
    private static final Logger LOG = Logger.getLogger(ExecutorClusterReconciler.class);

    @Inject
    OperatorConfig config;

    @Inject
    io.drover.operator.metrics.ClusterGauges gauges;

    private final ClusterEvents events = new ClusterEvents();
    private final FleetFigures fleet = new FleetFigures();
    private final OutsideChanges outsideChanges = new OutsideChanges();
    private final FigureScraper scraper = new FigureScraper(Duration.ofSeconds(2), ExecutorStatefulSet.HTTP_PORT);

    /** The executor pods' informer (prepareEventSources). */
    private volatile InformerEventSource<Pod, ExecutorCluster> pods;

    @Override
    public List<EventSource<?, ExecutorCluster>> prepareEventSources(EventSourceContext<ExecutorCluster> context) {
        // StatefulSet status drives the Ready/Progressing conditions; only ours are cached.
        var statefulSets = new InformerEventSource<>(InformerEventSourceConfiguration
                .from(StatefulSet.class, ExecutorCluster.class)
                .withLabelSelector(Labels.MANAGED_SELECTOR)
                .withNamespacesInheritedFromController()
                .build(), context);
        // Executor pods, for the root cause of nodes that are not ready (PodProblems). They are
        // owned by the StatefulSet, not the cluster: mapped back by the instance label.
        pods = new InformerEventSource<>(InformerEventSourceConfiguration
                .from(Pod.class, ExecutorCluster.class)
                .withLabelSelector(Labels.MANAGED_SELECTOR)
                .withSecondaryToPrimaryMapper(pod -> {
                    String cluster = pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(Labels.INSTANCE);
                    return cluster == null ? Set.of() : Set.of(new ResourceID(cluster, pod.getMetadata().getNamespace()));
                })
                .withNamespacesInheritedFromController()
                .build(), context);
        // No Secret informer: the operator may only get the Secrets clusters name (ReferencedSecrets),
        // and reads them again every secretRecheckInterval to notice a rotated password.
        return List.of(statefulSets, pods);
    }

    @Override
    public UpdateControl<ExecutorCluster> reconcile(ExecutorCluster ec, Context<ExecutorCluster> context) {
        KubernetesClient client = context.getClient();
        StatefulSet current = ownStatefulSet(ec, context);

        var refusal = SpecGuards.refusal(ec.getSpec());
        if (refusal.isPresent()) {
            // The CRD in place may predate a rule: the operator holds the line itself.
            LOG.warnf("%s/%s: %s", ec.getMetadata().getNamespace(), ec.getMetadata().getName(), refusal.get());
            var findings = ClusterStatus.Findings.blocked("an acceptable spec", "SpecRefused", refusal.get());
            return status(ec, current, findings, client).rescheduleAfter(config.secretRecheckInterval());
        }

        ImagePolicy images = new ImagePolicy(config.allowedImages().orElse(List.of()));
        if (!images.allows(ec.getSpec().image)) {
            // Change nothing that runs: the fleet keeps its current image.
            String message = "spec.image " + ec.getSpec().image + " is not among the images this operator allows ("
                    + images.describe() + "; the chart's executorImage.allowedImages)";
            LOG.warnf("%s/%s: %s", ec.getMetadata().getNamespace(), ec.getMetadata().getName(), message);
            var findings = ClusterStatus.Findings.blocked("an allowed image", "ImageNotAllowed", message);
            return status(ec, current, findings, client).rescheduleAfter(config.secretRecheckInterval());
        }

        ReferencedSecrets.Result secrets = ReferencedSecrets.read(client, ec);
        if (!secrets.ok()) {
            // Change nothing that runs: executors keep working with what they have.
            LOG.warnf("%s/%s: %s", ec.getMetadata().getNamespace(), ec.getMetadata().getName(), secrets.problemMessage());
            var findings = ClusterStatus.Findings.blocked("the referenced Secret", secrets.problemReason(),
                    secrets.problemMessage());
            return status(ec, current, findings, client).rescheduleAfter(config.secretRecheckInterval());
        }

        boolean tokens = ec.getSpec().apiTokenSecret == null && ec.getSpec().engine != Engine.Flowable;
        boolean keda = Autoscaler.kedaInstalled(client);
        var taken = Ownership.taken(client, ec, writes(ec, tokens, keda));
        if (taken.isPresent()) {
            // Change nothing: neither the other objects nor this cluster's own.
            LOG.warnf("%s/%s: %s", ec.getMetadata().getNamespace(), ec.getMetadata().getName(), taken.get());
            var findings = ClusterStatus.Findings.blocked("names of its own", "NameTaken", taken.get());
            return status(ec, current, findings, client).rescheduleAfter(config.secretRecheckInterval());
        }

        Secret rollKeySecret = ensureGenerated(ec, client, Names.rollKey(ec), () -> RollKey.build(ec)).secret();
        byte[] rollKey = RollKey.of(rollKeySecret);
        if (rollKey == null) {
            String message = "Secret " + ec.getMetadata().getNamespace() + "/" + Names.rollKey(ec) + " has no key '"
                    + RollKey.KEY + "' (it was replaced): delete it, and the operator generates a new one (the executors"
                    + " roll once)";
            LOG.warnf("%s/%s: %s", ec.getMetadata().getNamespace(), ec.getMetadata().getName(), message);
            var findings = ClusterStatus.Findings.blocked("the key of its roll hash", "SecretKeyNotFound", message);
            return status(ec, current, findings, client).rescheduleAfter(config.secretRecheckInterval());
        }

        // The settings travel in the pod template (ExecutorStatefulSet), one revision's with it.
        Map<String, String> settings = ExecutorEnvironment.environment(ec.getSpec());
        // The generated tokens join the roll hash: deleting <name>-api to rotate them gives new
        // tokens and rolls the executors onto them.
        // The Flowable executor serves no job API, so a Flowable cluster gets no tokens.
        // One HMAC over every value the executors read, the referenced and the generated ones.
        java.util.SortedMap<String, String> values = new java.util.TreeMap<>(secrets.values());
        if (tokens) {
            java.util.SortedMap<String, String> apiTokens = ensureApiTokens(ec, client);
            List<String> missing = apiTokens.entrySet().stream().filter(e -> e.getValue().isEmpty())
                    .map(e -> e.getKey().substring(e.getKey().indexOf('/') + 1)).toList();
            if (!missing.isEmpty()) {
                // The pods read both keys (not optional): rolled onto a Secret without one, every new
                // pod failed to start (CreateContainerConfigError) and the roll stalled at its first.
                String message = "Secret " + ec.getMetadata().getNamespace() + "/" + Names.apiTokens(ec) + " has no "
                        + String.join(" and no ", missing.stream().map(k -> "'" + k + "'").toList())
                        + " (it was edited): delete it, and the operator generates new tokens (the executors roll once;"
                        + " give producers the new token)";
                LOG.warnf("%s/%s: %s", ec.getMetadata().getNamespace(), ec.getMetadata().getName(), message);
                var findings = ClusterStatus.Findings.blocked("its API tokens", "SecretKeyNotFound", message);
                return status(ec, current, findings, client).rescheduleAfter(config.secretRecheckInterval());
            }
            values.putAll(apiTokens);
        }
        String secretsHash = ReferencedSecrets.hmac(rollKey, values);
        apply(ec, client, ExecutorServices.headless(ec));
        apply(ec, client, ExecutorServices.api(ec));
        if (ExecutorDisruptionBudget.wanted(ec)) {
            apply(ec, client, ExecutorDisruptionBudget.build(ec));
        } else {
            Ownership.deleteIfOwned(client, ec, Ownership.Target.of(PodDisruptionBudget.class, Names.disruptionBudget(ec)));
        }
        if (ExecutorNetworkPolicy.wanted(ec)) {
            apply(ec, client, ExecutorNetworkPolicy.build(ec, config.podNamespace(),
                    config.scrapeNamespaces().orElse(List.of())));
        } else {
            Ownership.deleteIfOwned(client, ec, Ownership.Target.of(NetworkPolicy.class, Names.networkPolicy(ec)));
        }
        Autoscaler.Outcome autoscaling = Autoscaler.reconcile(client, ec, keda, config.kedaRemovalPatience(), object -> apply(ec, client, object));

        var hashes = new RollHashes(ReferencedSecrets.sha256(settings + "|" + secretsHash),
                ReferencedSecrets.sha256(String.valueOf(settings)), secretsHash, rollKeySecret.getMetadata().getUid());
        StatefulSet sts = upsertStatefulSet(ec, client, current, hashes, found -> replicas(ec, found, autoscaling));
        deleteSettingsConfigMapOnceUnused(ec, client, sts);

        var findings = ClusterStatus.Findings.applied(autoscaling.active(), autoscaling.reason(), autoscaling.message());
        UpdateControl<ExecutorCluster> control = status(ec, sts, findings, client);
        Duration next = config.figuresInterval().compareTo(config.secretRecheckInterval()) < 0
                ? config.figuresInterval() : config.secretRecheckInterval();
        if (Autoscaler.wanted(ec) && !autoscaling.active() && config.kedaRecheckInterval().compareTo(next) < 0) {
            // KEDA may be installed later, or its ScaledObject may become ready: look again.
            next = config.kedaRecheckInterval();
        }
        return control.rescheduleAfter(next);
    }

    /** The objects this reconciliation is about to write, for {@link Ownership#taken}. */
    private static List<Ownership.Target> writes(ExecutorCluster ec, boolean tokens, boolean keda) {
        List<Ownership.Target> writes = new java.util.ArrayList<>(List.of(
                Ownership.Target.of(StatefulSet.class, Names.statefulSet(ec)),
                Ownership.Target.of(Service.class, Names.headlessService(ec)),
                Ownership.Target.of(Service.class, Names.service(ec))));
        writes.add(Ownership.Target.of(Secret.class, Names.rollKey(ec)));
        if (tokens) {
            writes.add(Ownership.Target.of(Secret.class, Names.apiTokens(ec)));
        }
        if (ExecutorDisruptionBudget.wanted(ec)) {
            writes.add(Ownership.Target.of(PodDisruptionBudget.class, Names.disruptionBudget(ec)));
        }
        if (ExecutorNetworkPolicy.wanted(ec)) {
            writes.add(Ownership.Target.of(NetworkPolicy.class, Names.networkPolicy(ec)));
        }
        if (Autoscaler.wanted(ec) && keda) {
            writes.addAll(Autoscaler.targets(ec));
        }
        return writes;
    }

    /**
     * The replica count to write. While KEDA owns the count (autoscaling enabled, even with KEDA
     * missing or not ready, or its HPA still being removed), the operator keeps whatever the
     * StatefulSet has: only a new StatefulSet gets a count from the spec (minReplicas).
     */
    static int replicas(ExecutorCluster ec, StatefulSet current, Autoscaler.Outcome autoscaling) {
        if (autoscaling.ownsReplicas()) {
            if (current != null && current.getSpec().getReplicas() != null) {
                return current.getSpec().getReplicas();
            }
            if (Autoscaler.wanted(ec)) {
                return ec.getSpec().autoscaling.minReplicas;
            }
        }
        return ec.getSpec().replicas == null ? ExecutorClusterSpec.DEFAULT_REPLICAS : ec.getSpec().replicas;
    }

    /**
     * Create, or update with optimistic locking (the cached resourceVersion): if the autoscaler
     * changed the replica count since we read it, the update fails with a conflict and the
     * reconciliation retries with fresh data, so a stale count is never written back.
     */
    private StatefulSet upsertStatefulSet(ExecutorCluster ec, KubernetesClient client, StatefulSet current, RollHashes hashes, java.util.function.ToIntFunction<StatefulSet> replicasFor) {
        int replicas = replicasFor.applyAsInt(current);
        StatefulSet desired = ExecutorStatefulSet.build(ec, config.defaultImage(ec.getSpec().engine), config.executorImagePullPolicy(),
                hashes.config(), replicas);
        String specHash = ReferencedSecrets.sha256(String.valueOf(desired.getSpec().toBuilder().withReplicas(0).build()));
        Map<String, String> annotations = desired.getMetadata().getAnnotations();
        annotations.put(SPEC_HASH, specHash);
        hashes.annotate(annotations);
        own(ec, desired);
        boolean relabel = false;
        if (current == null) {
            StatefulSet existing = client.resource(desired).get();
            if (existing == null) {
                LOG.infof("%s/%s: creating executor StatefulSet with %d nodes", ec.getMetadata().getNamespace(),
                        ec.getMetadata().getName(), replicas);
                StatefulSet created = client.resource(desired).create();
                events.normal(client, ec, "Created", "Create", "Created executor StatefulSet " + desired.getMetadata().getName()
                        + " with " + replicas + " node" + (replicas == 1 ? "" : "s"));
                return created;
            }
            // Ours (Ownership.taken let the pass through) but not in the informer's cache: its
            // managed-by label was removed or changed (by hand, a webhook), or the cache is
            // behind. Its count as it stands (the autoscaler's: counted from a missing
            // StatefulSet, it was minReplicas, and the pass scaled KEDA's fleet down at every
            // turn), and written whole below, which puts the label back.
            current = existing;
            relabel = true;
            replicas = replicasFor.applyAsInt(existing);
            desired.getSpec().setReplicas(replicas);
        }
        Map<String, String> was = current.getMetadata().getAnnotations() == null ? Map.of() : current.getMetadata().getAnnotations();
        boolean templateChanged = !specHash.equals(was.get(SPEC_HASH));
        Integer wasReplicas = current.getSpec().getReplicas();
        desired.getMetadata().setResourceVersion(current.getMetadata().getResourceVersion());
        keepRolloutRestart(current, desired);
        boolean changedOutside = !templateChanged && changedOutside(ec, client, desired, current, specHash);
        if (!templateChanged && !changedOutside && !relabel) {
            return Objects.equals(wasReplicas, replicas) ? current : scale(ec, client, current, wasReplicas, replicas);
        }
        LOG.infof("%s/%s: updating executor StatefulSet (%s)", ec.getMetadata().getNamespace(), ec.getMetadata().getName(),
                templateChanged ? "pod template" : changedOutside ? "changed outside the operator" : "its labels");
        Instant restoring = Instant.now();
        if (changedOutside) {
            OutsideChanges.markRestoring(desired, restoring);
        }
        StatefulSet updated = client.resource(desired).update();
        if (templateChanged) {
            events.normal(client, ec, "RollingUpdate", "Update", "Rolling the executors: " + hashes.causeSince(was));
        } else if (changedOutside) {
            outsideChanges.restored(ec.getMetadata().getUid(), restoring);
            events.warning(client, ec, "StatefulSetRestored", "Update", "Restored executor StatefulSet "
                    + desired.getMetadata().getName() + " as the ExecutorCluster declares it: its spec was changed outside the"
                    + " operator (e.g. kubectl edit or set image); change the ExecutorCluster instead");
        }
        if (!Objects.equals(wasReplicas, replicas)) {
            scaled(ec, client, wasReplicas, replicas);
        }
        return updated;
    }

    private void scaled(ExecutorCluster ec, KubernetesClient client, Integer wasReplicas, int replicas) {
        events.normal(client, ec, "Scaled", "Scale", "Scaled the executors from " + wasReplicas + " to " + replicas + " nodes");
    }

    /**
     * Only the node count changes, through the StatefulSet's scale subresource (as an HPA scales
     * it): a template someone changed outside the operator within {@link OutsideChanges#QUIET}
     * of a restore (or one a failed comparison did not look at this pass) is neither written back
     * as declared, which would roll the executors without the guard or an event, nor written
     * again as it is (the chart's policy on the operator's writes would refuse a template it did
     * not make, and the scale with it). The Scale carries the resourceVersion read, so if the
     * count changed meanwhile (the autoscaler) it fails with a conflict and the pass is retried
     * with fresh data.
     */
    private StatefulSet scale(ExecutorCluster ec, KubernetesClient client, StatefulSet current, Integer wasReplicas, int replicas) {
        LOG.infof("%s/%s: scaling executor StatefulSet from %s to %d nodes", ec.getMetadata().getNamespace(),
                ec.getMetadata().getName(), wasReplicas, replicas);
        var statefulSet = client.apps().statefulSets().inNamespace(current.getMetadata().getNamespace())
                .withName(current.getMetadata().getName());
        statefulSet.scale(new io.fabric8.kubernetes.api.model.autoscaling.v1.ScaleBuilder()
                .withNewMetadata().withName(current.getMetadata().getName()).withNamespace(current.getMetadata().getNamespace())
                .withResourceVersion(current.getMetadata().getResourceVersion()).endMetadata()
                .withNewSpec().withReplicas(replicas).endSpec().build());
        scaled(ec, client, wasReplicas, replicas);
        return statefulSet.get();
    }

    /** Dry runs made to look for outside changes of a cluster's StatefulSet, for tests. */
    long outsideChangeComparisons(String clusterUid) {
        return outsideChanges.comparisons(clusterUid);
    }

    /**
     * Whether the StatefulSet, with nothing of the operator's to change, was changed by someone
     * else and may be restored now ({@link OutsideChanges}). A dry run the API server does not
     * answer (a conflict with a newer version, a webhook that is down) finds nothing this pass:
     * the status is still written, and the next pass looks again.
     */
    private boolean changedOutside(ExecutorCluster ec, KubernetesClient client, StatefulSet desired, StatefulSet current,
                                   String specHash) {
        String clusterUid = ec.getMetadata().getUid();
        String version = OutsideChanges.version(current, specHash);
        if (outsideChanges.knownUnchanged(clusterUid, version)) {
            return false;
        }
        StatefulSet asStored;
        outsideChanges.comparing(clusterUid);
        try {
            asStored = client.resource(desired).dryRun().update();
        } catch (KubernetesClientException e) {
            LOG.debugf("%s/%s: no comparison with the stored StatefulSet this pass (%s)", ec.getMetadata().getNamespace(),
                    ec.getMetadata().getName(), ApiServerMessages.of(e));
            return false;
        }
        if (!OutsideChanges.differ(asStored, current)) {
            outsideChanges.foundUnchanged(clusterUid, version);
            return false;
        }
        if (!outsideChanges.mayRestore(clusterUid, Instant.now(), current)) {
            events.warning(client, ec, "StatefulSetChangedAgain", "Update", "Executor StatefulSet "
                    + desired.getMetadata().getName() + " was changed outside the operator again within "
                    + OutsideChanges.QUIET.toMinutes() + " minutes of its last restore (a person, or a controller or"
                    + " admission webhook that changes it at each write): left as it is until then, so as not to roll"
                    + " the executors at every pass");
            return false;
        }
        return true;
    }

    /**
     * The pod template annotation {@code kubectl rollout restart} sets (its time), carried over
     * into the template the operator writes. The update replaces the whole StatefulSet: without
     * it, the next write after a restart (a scaling, a settings change) removed the annotation,
     * a template change of its own, and every executor was restarted once more. Not part of the
     * spec hash: carrying it over is not a change.
     */
    static void keepRolloutRestart(StatefulSet current, StatefulSet desired) {
        var template = current.getSpec().getTemplate().getMetadata();
        String restartedAt = template == null || template.getAnnotations() == null ? null
                : template.getAnnotations().get(ROLLOUT_RESTARTED_AT);
        if (restartedAt != null) {
            desired.getSpec().getTemplate().getMetadata().getAnnotations().put(ROLLOUT_RESTARTED_AT, restartedAt);
        }
    }

    /**
     * Created once and never rewritten: producers hold its tokens (ApiTokens).
     *
     * @return the tokens by "secret/key", for the roll hash (in memory only)
     */
    private java.util.SortedMap<String, String> ensureApiTokens(ExecutorCluster ec, KubernetesClient client) {
        Generated tokens = ensureGenerated(ec, client, Names.apiTokens(ec), () -> ApiTokens.build(ec));
        if (tokens.created()) {
            LOG.infof("%s/%s: generated the API tokens in Secret %s", ec.getMetadata().getNamespace(),
                    ec.getMetadata().getName(), Names.apiTokens(ec));
            events.normal(client, ec, "TokensGenerated", "Create", "Generated the API tokens in Secret " + Names.apiTokens(ec)
                    + " (token: read-write, readToken: read-only)");
        }
        // The keys the executors read, and only those: another key added by a tool rolls nothing.
        Map<String, String> data = tokens.secret().getData() == null ? Map.of() : tokens.secret().getData();
        java.util.SortedMap<String, String> read = new java.util.TreeMap<>();
        for (String key : List.of(ApiTokens.TOKEN_KEY, ApiTokens.READ_TOKEN_KEY)) {
            read.put(Names.apiTokens(ec) + "/" + key, data.getOrDefault(key, ""));
        }
        return read;
    }

    /** A Secret the operator generates for a cluster, as it exists, and whether this pass created it. */
    private record Generated(Secret secret, boolean created) {
        @Override
        public String toString() { // never the generated values
            return "Generated[" + secret.getMetadata().getName() + ", created=" + created + "]";
        }
    }

    /** Reads the generated Secret, or creates it from {@code build} the first time; never rewrites it. */
    private Generated ensureGenerated(ExecutorCluster ec, KubernetesClient client, String name,
                                      java.util.function.Supplier<Secret> build) {
        var secrets = client.secrets().inNamespace(ec.getMetadata().getNamespace());
        Secret existing = secrets.withName(name).get();
        if (existing != null) {
            return new Generated(existing, false);
        }
        Secret generated = build.get();
        own(ec, generated);
        try {
            return new Generated(secrets.resource(generated).create(), true);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) { // created meanwhile: keep the one that exists
                throw e;
            }
            return new Generated(secrets.withName(name).require(), false);
        }
    }

    private void apply(ExecutorCluster ec, KubernetesClient client, HasMetadata object) {
        own(ec, object);
        client.resource(object).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
    }

    /**
     * Operators before 2026-11-28 gave the executors their settings in a ConfigMap
     * ({@code <name>-config}, envFrom) shared by every revision: a container that restarted in a
     * pod not yet rolled read the new settings with its old pod spec (a jobTimeout of an hour
     * under a grace period of ten minutes, threads raised above the old memory limit). The
     * settings now travel in the pod template. The old ConfigMap goes once no pod can read it any
     * more: the StatefulSet's template no longer names it and every pod runs that template (a
     * pod of the old revision that restarts meanwhile still finds it).
     */
    private void deleteSettingsConfigMapOnceUnused(ExecutorCluster ec, KubernetesClient client, StatefulSet sts) {
        if (settingsConfigMapGone.contains(ec.getMetadata().getUid())) {
            return;
        }
        var st = sts.getStatus();
        boolean rolled = st != null && st.getUpdateRevision() != null && st.getUpdateRevision().equals(st.getCurrentRevision())
                && st.getObservedGeneration() != null && st.getObservedGeneration() >= sts.getMetadata().getGeneration();
        boolean named = sts.getSpec().getTemplate().getSpec().getContainers().stream()
                .anyMatch(c -> c.getEnvFrom() != null && !c.getEnvFrom().isEmpty());
        if (rolled && !named) {
            try {
                Ownership.deleteIfOwned(client, ec, Ownership.Target.of(ConfigMap.class, Names.legacySettingsConfigMap(ec)));
                settingsConfigMapGone.add(ec.getMetadata().getUid()); // one look per cluster and operator start
            } catch (KubernetesClientException e) {
                // Tidying only: no pod reads it. The pass, which applied the spec, does not fail for it.
                LOG.warnf("%s/%s: could not delete the settings ConfigMap %s an older operator wrote (tried again next"
                        + " pass): %s", ec.getMetadata().getNamespace(), ec.getMetadata().getName(),
                        Names.legacySettingsConfigMap(ec), ApiServerMessages.of(e));
            }
        }
    }

    private static void own(ExecutorCluster ec, HasMetadata object) {
        object.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder()
                .withApiVersion(ec.getApiVersion()).withKind(ec.getKind())
                .withName(ec.getMetadata().getName()).withUid(ec.getMetadata().getUid())
                .withController(true).withBlockOwnerDeletion(true)
                .build()));
    }

    private UpdateControl<ExecutorCluster> status(ExecutorCluster ec, StatefulSet sts, ClusterStatus.Findings findings,
                                                  KubernetesClient client) {
        if (ec.getSpec() == null) {
            // Refused (SpecGuards): nothing to read figures for; the status says why.
            return patchStatus(ec, ClusterStatus.of(ec, sts, findings), client);
        }
        List<Pod> clusterPods = podsOf(ec, sts);
        boolean figures = sts != null && ec.getSpec().engine != Engine.Flowable;
        Map<String, NodeReading> readings = figures ? scraper.read(clusterPods) : Map.of();
        ClusterStatus.Findings found = findings.withPods(podProblem(client, sts, clusterPods, readings))
                .withStall(RollStall.find(clusterPods, wanted(sts), Instant.now(), config.progressDeadline()));
        if (sts != null && ec.getSpec().engine == Engine.Flowable) {
            // Flowable's executor has no figures endpoint: its nodes serve metrics only.
            found = found.withFigures(null, new Bottleneck.Diagnosis("Unknown", "NotReported",
                    "The Flowable engine reports no figures to diagnose; its nodes' metrics (drover_jobs_executed_total,"
                            + " drover_threads_busy, drover_queue_depth) show its throughput and load"));
        } else if (sts != null) {
            // Live figures from the executors themselves (never the database), and what they show.
            FleetFigures.Snapshot snapshot = fleet.observe(ec.getMetadata().getUid(), readings, Instant.now());
            var spec = ec.getSpec();
            var context = new Bottleneck.Context(spec.lockMode == null ? null : spec.lockMode.name(), findings.autoscalingActive(),
                    wanted(sts), spec.autoscaling == null || spec.autoscaling.maxReplicas == null ? 0 : spec.autoscaling.maxReplicas);
            found = found.withFigures(snapshot.status(), Bottleneck.diagnose(snapshot, context));
        }
        return patchStatus(ec, ClusterStatus.of(ec, sts, found), client);
    }

    private UpdateControl<ExecutorCluster> patchStatus(ExecutorCluster ec, io.drover.operator.api.v1alpha1.ExecutorClusterStatus status,
                                                       KubernetesClient client) {
        ExecutorCluster patch = statusPatch(ec);
        patch.setStatus(status);
        degradedEvents(ec, patch.getStatus(), client);
        stallEvent(ec, patch.getStatus(), client);
        gauges.record(ec, patch.getStatus());
        return UpdateControl.patchStatus(patch);
    }

    /** A Warning when Degraded turns True or changes its reason; Normal "Recovered" when it clears. */
    private void degradedEvents(ExecutorCluster ec, io.drover.operator.api.v1alpha1.ExecutorClusterStatus next, KubernetesClient client) {
        var before = ec.getStatus() == null ? null : Conditions.find(ec.getStatus().conditions, Conditions.DEGRADED);
        var after = Conditions.find(next.conditions, Conditions.DEGRADED);
        boolean wasDegraded = before != null && "True".equals(before.getStatus());
        if (after != null && "True".equals(after.getStatus())) {
            if (!wasDegraded || !Objects.equals(before.getReason(), after.getReason())) {
                events.warning(client, ec, after.getReason(), "Diagnose", after.getMessage());
            }
        } else if (wasDegraded) {
            events.normal(client, ec, "Recovered", "Diagnose", "No longer degraded (was " + before.getReason() + ")");
        }
    }

    /** A Warning when a roll or scale stalls past the progress deadline (Progressing False, ProgressDeadlineExceeded). */
    private void stallEvent(ExecutorCluster ec, io.drover.operator.api.v1alpha1.ExecutorClusterStatus next, KubernetesClient client) {
        var before = ec.getStatus() == null ? null : Conditions.find(ec.getStatus().conditions, Conditions.PROGRESSING);
        var after = Conditions.find(next.conditions, Conditions.PROGRESSING);
        if (after != null && ClusterStatus.PROGRESS_DEADLINE_EXCEEDED.equals(after.getReason())
                && (before == null || !ClusterStatus.PROGRESS_DEADLINE_EXCEEDED.equals(before.getReason()))) {
            events.warning(client, ec, ClusterStatus.PROGRESS_DEADLINE_EXCEEDED, "Roll", after.getMessage());
        }
    }

    /** The executor nodes the StatefulSet wants (its spec's replicas; 0 without one). */
    private static int wanted(StatefulSet sts) {
        return sts == null || sts.getSpec().getReplicas() == null ? 0 : sts.getSpec().getReplicas();
    }

    /**
     * The root cause of nodes that are not ready: what a pod reports (its status, or for a
     * running executor that is not ready, the problem its figures name), or, for pods that do not
     * exist, why the StatefulSet controller could not create them (its FailedCreate events).
     */
    private static Optional<PodProblems.Problem> podProblem(KubernetesClient client, StatefulSet sts, List<Pod> pods,
                                                            Map<String, NodeReading> readings) {
        Optional<PodProblems.Problem> problem = PodProblems.find(pods, readings);
        if (problem.isPresent() || pods.size() >= wanted(sts)) {
            return problem;
        }
        try {
            return CreationFailures.find(sts, pods, CreationFailures.read(client, sts), Instant.now());
        } catch (KubernetesClientException e) {
            // Events are a diagnosis, not the reconciliation: without them the condition says less.
            LOG.debugf("%s/%s: could not read the StatefulSet's events: %s", sts.getMetadata().getNamespace(),
                    sts.getMetadata().getName(), e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * The pods of the cluster's StatefulSet: labels alone could be copied by any pod of the
     * namespace (to plant conditions or figures), the controller reference cannot.
     */
    private List<Pod> podsOf(ExecutorCluster ec, StatefulSet sts) {
        if (pods == null || sts == null || sts.getMetadata().getUid() == null) {
            return List.of();
        }
        String name = ec.getMetadata().getName();
        String owner = sts.getMetadata().getUid();
        return pods.list(ec.getMetadata().getNamespace(), p -> p.getMetadata().getLabels() != null
                && name.equals(p.getMetadata().getLabels().get(Labels.INSTANCE))
                && p.getMetadata().getOwnerReferences() != null
                && p.getMetadata().getOwnerReferences().stream().anyMatch(r -> owner.equals(r.getUid()) && Boolean.TRUE.equals(r.getController())))
                .toList();
    }

    /**
     * A fresh object with only what a status patch needs, so the spec is never written back.
     * It carries the resourceVersion the reconciliation read: if the spec changed meanwhile,
     * the patch fails with a conflict and the SDK reconciles again with the new spec. (Without
     * it the patch succeeds, and the SDK, which ignores the events of its own writes, may never
     * reconcile the change.)
     */
    private static ExecutorCluster statusPatch(ExecutorCluster ec) {
        ExecutorCluster patch = new ExecutorCluster();
        patch.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withName(ec.getMetadata().getName()).withNamespace(ec.getMetadata().getNamespace())
                .withGeneration(ec.getMetadata().getGeneration())
                .withResourceVersion(ec.getMetadata().getResourceVersion()).build());
        return patch;
    }

    @Override
    public ErrorStatusUpdateControl<ExecutorCluster> updateErrorStatus(ExecutorCluster ec, Context<ExecutorCluster> context,
                                                                      Exception e) {
        if (isConflict(e)) {
            // Someone wrote the object since we read it (a spec edit, the autoscaler): not a
            // fault, and the SDK's retry reconciles again with fresh data.
            LOG.debugf("%s/%s: conflict, reconciling again", ec.getMetadata().getNamespace(), ec.getMetadata().getName());
            return ErrorStatusUpdateControl.noStatusUpdate();
        }
        String message = ApiServerMessages.of(e);
        LOG.warnf(e, "%s/%s: reconciliation failed", ec.getMetadata().getNamespace(), ec.getMetadata().getName());
        StatefulSet current = ownStatefulSet(ec, context);
        // The figures and the bottleneck the last good pass found stay: a failed write says
        // nothing new about the running fleet (an empty fleet and "no node answered" would be false).
        var previous = ec.getStatus();
        var bottleneck = previous == null ? null : Conditions.find(previous.conditions, Conditions.BOTTLENECK);
        var findings = ClusterStatus.Findings.reconcileFailed(message.length() > 1000 ? message.substring(0, 1000) : message)
                .withFigures(previous == null ? null : previous.fleet, bottleneck == null ? null
                        : new Bottleneck.Diagnosis(bottleneck.getStatus(), bottleneck.getReason(), bottleneck.getMessage()));
        ExecutorCluster patch = statusPatch(ec);
        patch.setStatus(ClusterStatus.of(ec, current, findings));
        // A Warning as for every other Degraded reason (it was the one without, so the next good
        // pass's "Recovered (was ReconcileFailed)" followed no Warning); once per failure, not
        // per retry: the stored status then says ReconcileFailed already.
        degradedEvents(ec, patch.getStatus(), context.getClient());
        gauges.record(ec, patch.getStatus()); // or the alerts on ready and wanted nodes go blind for this cluster
        return ErrorStatusUpdateControl.patchStatus(patch);
    }

    /**
     * The cluster's StatefulSet among those the informer relates to it, by name. The informer
     * relates a StatefulSet to a cluster by its owner reference's kind and name, so a copy that
     * kept the reference (kubectl get -o yaml, renamed, applied, to debug) related too, and
     * {@code getSecondaryResource} threw on two: every pass failed, and so did its error status,
     * whose write it also needed; the status froze at its last word, spec edits went unapplied,
     * and the gauges behind the alerts went blank.
     */
    static StatefulSet ownStatefulSet(ExecutorCluster ec, Context<ExecutorCluster> context) {
        String name = Names.statefulSet(ec);
        return context.getSecondaryResources(StatefulSet.class).stream()
                .filter(s -> name.equals(s.getMetadata().getName())).findFirst().orElse(null);
    }

    static boolean isConflict(Throwable e) {
        return Causes.chain(e).stream().anyMatch(t -> t instanceof KubernetesClientException k && k.getCode() == 409);
    }
}
