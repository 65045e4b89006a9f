package io.drover.operator.reconcile;

import io.drover.contract.SettingDefaults;
import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.autoscaling.Autoscaler;
import io.drover.operator.autoscaling.BacklogQuery;
import io.drover.operator.autoscaling.FlowableBacklogQuery;
import io.drover.operator.resources.ExecutorStatefulSet;
import io.drover.operator.resources.Labels;
import io.drover.operator.status.ClusterEvents;
import io.drover.operator.status.ClusterStatus;
import io.drover.operator.status.Conditions;
import io.drover.operator.testing.Clusters;
import io.drover.operator.testing.TestCluster;
import io.drover.operator.testing.TestClusterResource;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator, running as in production, against a real kube-apiserver: what it creates,
 * how it rolls, how it reports, how it shares the replica count with KEDA, and that deleting
 * an ExecutorCluster removes what it owns (garbage collector running).
 */
@QuarkusTest
@WithTestResource(TestClusterResource.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExecutorClusterReconcilerTest {
    @jakarta.inject.Inject
    ExecutorClusterReconciler reconciler;
    @io.quarkus.test.common.http.TestHTTPResource("/q/metrics")
    java.net.URL metricsUrl;

    static final Duration TIMEOUT = TestCluster.TIMEOUT;

    KubernetesClient client;
    String ns;

    @BeforeEach
    void namespace() {
        client = TestCluster.get().client();
        ns = TestCluster.get().newNamespace("rec");
    }

    @Test
    @Order(1)
    void createsTheOwnedResources() {
        Clusters.dbSecret(client, ns, "s3cret");
        ExecutorCluster ec = Clusters.create(client, ns, Clusters.yaml("jobs", """
                lockMode: Global
                threads: 64
                lockExpiry: 1m30s
                maxJobDuration: 2h
                jobTimeout: 1h
                jobTimeouts: {report: 1h30m, http: 30s}
                maxCrashes: 2
                jvmOptions: -Xmx700m
                database: {host: db.example.internal, name: jobs, sslMode: require, credentialsSecret: {name: jobs-db}}
                """));

        StatefulSet sts = await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("jobs").get());
        Service headless = await("headless Service", () -> client.services().inNamespace(ns).withName("jobs-nodes").get());
        Service api = await("API Service", () -> client.services().inNamespace(ns).withName("jobs").get());
        PodDisruptionBudget pdb = await("PDB", () -> client.policy().v1().podDisruptionBudget().inNamespace(ns).withName("jobs").get());
        NetworkPolicy netpol = await("NetworkPolicy", () -> client.network().v1().networkPolicies().inNamespace(ns).withName("jobs").get());

        for (HasMetadata owned : new HasMetadata[]{sts, headless, api, pdb, netpol}) {
            assertThat(owned.getMetadata().getOwnerReferences()).singleElement().satisfies(ref -> {
                assertThat(ref.getUid()).isEqualTo(ec.getMetadata().getUid());
                assertThat(ref.getController()).isTrue();
            });
        }
        // Settings under the executor's own names, in the pod template (each revision its own);
        // durations in ISO-8601, which it parses.
        Map<String, String> settings = settingsOf(sts);
        assertThat(settings).containsEntry("DROVER_LOCKMODE", "Global")
                .containsEntry("DROVER_THREADS", "64")
                .as("defaults are passed on as the server applied them")
                .containsEntry("DROVER_QUEUESIZE", SettingDefaults.QUEUE_SIZE)
                .containsEntry("DROVER_ACQUIREPAGESIZE", SettingDefaults.ACQUIRE_PAGE_SIZE)
                .containsEntry("DROVER_LOCKEXPIRY", "PT1M30S")
                .containsEntry("DROVER_JOBTIMEOUT", "PT1H")
                .containsEntry("DROVER_SHUTDOWNGRACEPERIOD", "PT2H10S")
                .containsEntry("DROVER_JOBTIMEOUTS", "{\"http\":\"PT30S\",\"report\":\"PT1H30M\"}")
                .containsEntry("DROVER_MAXCRASHES", "2")
                .containsEntry("QUARKUS_DATASOURCE_JDBC_URL",
                        "jdbc:postgresql://db.example.internal:5432/jobs?sslmode=require&ApplicationName=drover-executor")
                .doesNotContainKey("DROVER_GLOBALLOCKWAITTIME");
        assertThat(settings.toString()).doesNotContain("s3cret");
        assertThat(client.configMaps().inNamespace(ns).withName("jobs-config").get()).as("no settings ConfigMap any more").isNull();
        // No token named: the operator generated the API tokens, once, and the pods read them.
        var tokens = client.secrets().inNamespace(ns).withName("jobs-api").get();
        assertThat(tokens.getMetadata().getLabels()).as("not usable by other clusters").doesNotContainKey("drover.io/executor-secret");
        assertThat(tokens.getData()).containsKeys("token", "readToken");
        assertThat(tokens.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(r -> assertThat(r.getUid()).isEqualTo(ec.getMetadata().getUid()));

        assertThat(sts.getSpec().getReplicas()).isEqualTo(2);
        assertThat(sts.getSpec().getServiceName()).isEqualTo("jobs-nodes");
        var pod = sts.getSpec().getTemplate().getSpec();
        Container c = pod.getContainers().get(0);
        assertThat(c.getImage()).isEqualTo("localhost/drover-executor:0.1.0");
        assertThat(c.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("QUARKUS_DATASOURCE_PASSWORD");
            assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("jobs-db");
            assertThat(e.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("password");
        }).anySatisfy(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("JAVA_TOOL_OPTIONS=-Xmx700m"))
                .anySatisfy(e -> {
                    assertThat(e.getName()).isEqualTo("DROVER_API_READTOKEN");
                    assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("jobs-api");
                    assertThat(e.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("readToken");
                });
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/q/health/ready");
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/q/health/live");
        assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        // maxJobDuration 2h: shutdownGracePeriod 2h10s, and the pod outlives it by 30 s.
        assertThat(pod.getTerminationGracePeriodSeconds()).isEqualTo(7240);
        assertThat(c.getResources().getRequests()).containsKeys("cpu", "memory");
        var terms = pod.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms();
        assertThat(terms).singleElement().satisfies(t -> assertThat(t.getMatchExpressions()).singleElement().satisfies(m -> {
            assertThat(m.getKey()).isEqualTo("node.kubernetes.io/instance-type");
            assertThat(m.getValues()).contains("c5.2xlarge").allMatch(v -> v.startsWith("c5."));
        }));
        assertThat(pod.getTopologySpreadConstraints()).singleElement()
                .satisfies(t -> assertThat(t.getTopologyKey()).isEqualTo("kubernetes.io/hostname"));
        assertThat(sts.getSpec().getTemplate().getMetadata().getAnnotations())
                .containsEntry("prometheus.io/scrape", "true").containsKey(ExecutorStatefulSet.CONFIG_HASH);
        assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
        // The HTTP port only from pods labelled as this cluster's clients; out only to DNS and
        // the database's port (a host name: any destination on that port).
        assertThat(netpol.getSpec().getPodSelector().getMatchLabels()).isEqualTo(sts.getSpec().getSelector().getMatchLabels());
        assertThat(netpol.getSpec().getPolicyTypes()).containsExactly("Ingress", "Egress");
        assertThat(netpol.getSpec().getIngress()).singleElement().satisfies(in -> {
            assertThat(in.getPorts()).singleElement().satisfies(p -> assertThat(p.getPort().getStrVal()).isEqualTo("http"));
            assertThat(in.getFrom()).singleElement().satisfies(f -> {
                assertThat(f.getPodSelector().getMatchLabels()).containsExactly(Map.entry("drover.io/client", "jobs"));
                assertThat(f.getNamespaceSelector()).isNull();
            });
        });
        assertThat(netpol.getSpec().getEgress()).hasSize(2);
        assertThat(netpol.getSpec().getEgress().get(0).getPorts()).extracting(p -> p.getProtocol() + "/" + p.getPort().getIntVal())
                .containsExactly("UDP/53", "TCP/53");
        assertThat(netpol.getSpec().getEgress().get(1).getPorts()).extracting(p -> p.getProtocol() + "/" + p.getPort().getIntVal())
                .containsExactly("TCP/5432");
        assertThat(netpol.getSpec().getEgress().get(1).getTo()).isEmpty();

        assertThat(awaitEvent("jobs", "Created").getNote()).isEqualTo("Created executor StatefulSet jobs with 2 nodes");
        assertThat(awaitEvent("jobs", "TokensGenerated").getType()).isEqualTo("Normal");

        ExecutorCluster withStatus = awaitCondition("jobs", Conditions.READY, "False", "NodesNotReady");
        assertThat(withStatus.getStatus().selector).isEqualTo("app.kubernetes.io/instance=jobs,app.kubernetes.io/name=drover-executor");
        assertThat(condition(withStatus, Conditions.AUTOSCALING).getReason()).isEqualTo("Disabled");
        assertThat(withStatus.getStatus().nodes).isEqualTo("0/2");
        // No executor runs here (no kubelet): no figures, and the condition says so rather than guessing.
        assertThat(condition(withStatus, Conditions.BOTTLENECK).getStatus()).isEqualTo("Unknown");
        assertThat(condition(withStatus, Conditions.BOTTLENECK).getReason()).isEqualTo("NoFigures");
        assertThat(condition(withStatus, Conditions.DEGRADED).getStatus()).isEqualTo("False");
    }

    @Test
    @Order(2)
    void settingsChangeAndPasswordRotationRollTheStatefulSet() {
        Clusters.dbSecret(client, ns, "first");
        Clusters.create(client, ns, Clusters.yaml("roll", "threads: 8"));
        String first = awaitHash("roll", null);

        edit("roll", ec -> ec.getSpec().threads = 16);
        String second = awaitHash("roll", first);
        assertThat(settingsOf("roll")).containsEntry("DROVER_THREADS", "16");

        assertThat(awaitEvent("roll", "RollingUpdate").getNote()).isEqualTo("Rolling the executors: the settings changed");

        Clusters.dbSecret(client, ns, "rotated");
        String third = awaitHash("roll", second);
        assertThat(third).isNotEqualTo(first);
        org.awaitility.Awaitility.await("RollingUpdate event for the Secret").atMost(TIMEOUT)
                .until(() -> events("roll", "RollingUpdate").stream().anyMatch(e -> e.getNote().equals(
                        "Rolling the executors: a referenced Secret changed (e.g. a rotated password or API token)")));

        // A StatefulSet the API server refuses (here by a policy of this test: the CRD refuses what
        // the API server would refuse of the pods, such as a resource name no container may have):
        // nothing is written, not even the new settings, and the cluster says why.
        String policy = refuseWidgets();
        edit("roll", ec -> {
            ec.getSpec().threads = 32;
            ec.getSpec().resources = new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                    .addToRequests("example.com/widgets", new io.fabric8.kubernetes.api.model.Quantity("1"))
                    .addToLimits("example.com/widgets", new io.fabric8.kubernetes.api.model.Quantity("1")).build();
        });
        ExecutorCluster refused = awaitCondition("roll", Conditions.DEGRADED, "True", "ReconcileFailed");
        assertThat(condition(refused, Conditions.DEGRADED).getMessage()).startsWith("the API server refused a request (422)")
                .contains("widgets").doesNotContain("https://");
        assertThat(settingsOf("roll")).as("the running pods' settings, kept").containsEntry("DROVER_THREADS", "16");
        edit("roll", ec -> {
            ec.getSpec().threads = 16;
            ec.getSpec().resources = null;
        });
        awaitCondition("roll", Conditions.DEGRADED, "False", "AsExpected");
        client.resourceList(policy).delete();

        // A no-op reconciliation (e.g. a label on the CR) must not roll anything.
        StatefulSet before = client.apps().statefulSets().inNamespace(ns).withName("roll").get();
        edit("roll", ec -> ec.getMetadata().setLabels(Map.of("team", "payments")));
        edit("roll", ec -> ec.getSpec().threads = 16);
        sleep(Duration.ofSeconds(2));
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("roll").get().getMetadata().getResourceVersion())
                .isEqualTo(before.getMetadata().getResourceVersion());

        // The settings ConfigMap an operator before 2026-11-28 wrote (every revision's pods read
        // it: a restart in a pod not yet rolled took the new settings with its old spec) goes
        // once every pod runs a template that does not name it.
        client.configMaps().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.ConfigMapBuilder().withNewMetadata()
                .withName("roll-config").addToLabels("app.kubernetes.io/managed-by", "drover-operator")
                .addNewOwnerReference().withApiVersion("drover.io/v1alpha1").withKind("ExecutorCluster").withName("roll")
                .withUid(client.resources(ExecutorCluster.class).inNamespace(ns).withName("roll").get().getMetadata().getUid())
                .withController(true).endOwnerReference().endMetadata().addToData("DROVER_THREADS", "8").build()).create();
        sleep(Duration.ofSeconds(3));
        assertThat(client.configMaps().inNamespace(ns).withName("roll-config").get()).as("kept while the roll is under way").isNotNull();
        writeStatus(before, 1, 1, 1, "rev-2", "rev-2");
        org.awaitility.Awaitility.await("the old settings ConfigMap deleted").atMost(TIMEOUT)
                .until(() -> client.configMaps().inNamespace(ns).withName("roll-config").get() == null);
        before = client.apps().statefulSets().inNamespace(ns).withName("roll").get(); // its status was written

        // A change of the Secret that leaves the values the executors read alone (a label, an
        // annotation, another key) rolls nothing: the hash covers the values, not the version.
        var dbSecret = client.secrets().inNamespace(ns).withName("jobs-db").get();
        client.secrets().inNamespace(ns).withName("jobs-db").edit(secret -> {
            secret.getMetadata().getLabels().put("helm.sh/chart", "payments-1.2.4");
            secret.getMetadata().setAnnotations(Map.of("reconcile.example.com/at", "2026-11-26T21:00:00Z"));
            secret.getData().put("host", java.util.Base64.getEncoder().encodeToString("db.example.internal".getBytes()));
            return secret;
        });
        assertThat(client.secrets().inNamespace(ns).withName("jobs-db").get().getMetadata().getResourceVersion())
                .isNotEqualTo(dbSecret.getMetadata().getResourceVersion());
        sleep(Duration.ofSeconds(5)); // more than two secretRecheckIntervals (2s in tests)
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("roll").get().getMetadata().getResourceVersion())
                .as("no roll for a Secret change the executors do not read").isEqualTo(before.getMetadata().getResourceVersion());

        // Rotating the generated API tokens: delete the Secret; new tokens, and the pods roll onto them.
        var oldTokens = client.secrets().inNamespace(ns).withName("roll-api").get();
        client.secrets().inNamespace(ns).withName("roll-api").withGracePeriod(0).delete();
        String fourth = awaitHash("roll", third);
        var newTokens = client.secrets().inNamespace(ns).withName("roll-api").get();
        assertThat(newTokens.getData().get("token")).isNotEqualTo(oldTokens.getData().get("token"));
        assertThat(fourth).isNotEqualTo(third);

        // The roll hash's key: generated once, owned by the cluster, never opted in for executors.
        // Deleting it gives a new key, hence a new hash: one roll.
        var rollKey = client.secrets().inNamespace(ns).withName("roll-roll-key").get();
        assertThat(rollKey.getMetadata().getOwnerReferences()).extracting(o -> o.getName()).containsExactly("roll");
        assertThat(rollKey.getMetadata().getLabels()).doesNotContainKey(io.drover.operator.resources.Labels.SECRET_OPT_IN);
        assertThat(rollKey.getImmutable()).isTrue();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.secrets().inNamespace(ns).withName("roll-roll-key")
                        .edit(secret -> {
                            secret.getData().put("key", java.util.Base64.getEncoder().encodeToString(new byte[32]));
                            return secret;
                        }))
                .as("an edit of the key is refused by the API server").isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("immutable");
        client.secrets().inNamespace(ns).withName("roll-roll-key").withGracePeriod(0).delete();
        String fifth = awaitHash("roll", fourth);
        assertThat(client.secrets().inNamespace(ns).withName("roll-roll-key").get().getData().get("key"))
                .isNotEqualTo(rollKey.getData().get("key"));
        assertThat(fifth).isNotEqualTo(fourth);
        org.awaitility.Awaitility.await("RollingUpdate event for the new key").atMost(TIMEOUT)
                .until(() -> events("roll", "RollingUpdate").stream().anyMatch(e -> e.getNote().equals(
                        "Rolling the executors: the roll hash's key is new (its Secret was deleted); no Secret value need"
                                + " have changed")));
    }

    /**
     * kubectl rollout restart sets a time on the pod template; the operator writes the whole
     * StatefulSet when the fleet's size or settings change, and used to drop that time: a
     * template change of its own, so every executor restarted once more on the next scaling.
     */
    @Test
    @Order(2)
    void aRolloutRestartSurvivesTheOperatorsNextWrite() {
        Clusters.dbSecret(client, ns, "first");
        Clusters.create(client, ns, Clusters.yaml("restart", "replicas: 1"));
        awaitHash("restart", null);
        String restartedAt = "2026-11-26T14:00:00Z";
        client.apps().statefulSets().inNamespace(ns).withName("restart").edit(sts -> {
            sts.getSpec().getTemplate().getMetadata().getAnnotations()
                    .put(ExecutorClusterReconciler.ROLLOUT_RESTARTED_AT, restartedAt);
            return sts;
        });

        edit("restart", ec -> ec.getSpec().replicas = 2);
        StatefulSet scaled = org.awaitility.Awaitility.await("scaled to 2").atMost(TIMEOUT)
                .until(() -> client.apps().statefulSets().inNamespace(ns).withName("restart").get(),
                        sts -> sts.getSpec().getReplicas() == 2);
        assertThat(scaled.getSpec().getTemplate().getMetadata().getAnnotations())
                .containsEntry(ExecutorClusterReconciler.ROLLOUT_RESTARTED_AT, restartedAt);
        assertThat(events("restart", "StatefulSetRestored")).as("a restart and the operator's own scaling are no outside change")
                .isEmpty();

        String before = scaled.getSpec().getTemplate().getMetadata().getAnnotations().get(ExecutorStatefulSet.CONFIG_HASH);
        edit("restart", ec -> ec.getSpec().threads = 16);
        awaitHash("restart", before);
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("restart").get().getSpec().getTemplate()
                .getMetadata().getAnnotations()).as("kept through a settings roll too")
                .containsEntry(ExecutorClusterReconciler.ROLLOUT_RESTARTED_AT, restartedAt);
    }

    /**
     * The StatefulSet is the operator's: a change made to it directly (kubectl set image, an
     * added variable, a changed probe) is undone on the next pass and said in an event, while
     * kubectl rollout restart, a change the operator carries over, is kept.
     */
    @Test
    @Order(2)
    void aStatefulSetChangedOutsideTheOperatorIsRestored() {
        Clusters.dbSecret(client, ns, "first");
        Clusters.create(client, ns, Clusters.yaml("drift", "replicas: 1"));
        awaitHash("drift", null);
        StatefulSet declared = client.apps().statefulSets().inNamespace(ns).withName("drift").get();
        String image = declared.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage();

        client.apps().statefulSets().inNamespace(ns).withName("drift").edit(sts -> {
            var container = sts.getSpec().getTemplate().getSpec().getContainers().getFirst();
            container.setImage("registry.example.com/miner:1");
            container.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar("EXTRA", "x", null));
            return sts;
        });
        StatefulSet restored = org.awaitility.Awaitility.await("the declared StatefulSet back").atMost(TIMEOUT)
                .until(() -> client.apps().statefulSets().inNamespace(ns).withName("drift").get(),
                        sts -> sts.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage().equals(image));
        assertThat(restored.getSpec()).isEqualTo(declared.getSpec());
        assertThat(awaitEvent("drift", "StatefulSetRestored").getNote())
                .contains("its spec was changed outside the operator", "change the ExecutorCluster instead");
        assertThat(events("drift", "RollingUpdate")).as("not a roll of the operator's").isEmpty();

        // Once restored, a pass writes nothing: the comparison is with what the API server stores.
        // (This API server runs no controllers: nothing else writes the StatefulSet's status.)
        // Nor does it make a dry run each time: the StatefulSet found unchanged is compared again
        // only once its spec is written (its generation).
        String version = restored.getMetadata().getResourceVersion();
        sleep(Duration.ofSeconds(3)); // the pass after the restore compares the restored StatefulSet once
        String uid = client.resources(ExecutorCluster.class).inNamespace(ns).withName("drift").get().getMetadata().getUid();
        long comparisons = reconciler.outsideChangeComparisons(uid);
        assertThat(comparisons).as("the restore was found by a dry run").isPositive();
        edit("drift", ec -> ec.getMetadata().setLabels(Map.of("team", "payments")));
        sleep(Duration.ofSeconds(5)); // more than two secretRecheckIntervals (2s in tests)
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("drift").get().getMetadata().getResourceVersion())
                .isEqualTo(version);
        assertThat(reconciler.outsideChangeComparisons(uid)).as("dry runs of passes that found it unchanged")
                .isEqualTo(comparisons);
        assertThat(events("drift", "StatefulSetRestored")).singleElement()
                .satisfies(e -> assertThat(e.getSeries()).as("restored once, not at every pass").isNull());

        // Changed again within minutes of the restore (as a webhook that changes it at each write
        // would): left alone, and said, rather than rolling the executors at every pass.
        client.apps().statefulSets().inNamespace(ns).withName("drift").edit(sts -> {
            sts.getSpec().getTemplate().getSpec().getContainers().getFirst().setImage("registry.example.com/miner:2");
            return sts;
        });
        assertThat(awaitEvent("drift", "StatefulSetChangedAgain").getNote()).contains("left as it is");
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("drift").get().getSpec().getTemplate().getSpec()
                .getContainers().getFirst().getImage()).isEqualTo("registry.example.com/miner:2");
        assertThat(events("drift", "StatefulSetRestored")).singleElement()
                .satisfies(e -> assertThat(e.getSeries()).isNull());

        // A scale in that quiet period changes the count only: writing the whole declared
        // StatefulSet would restore (and roll) after all, without the guard or an event.
        edit("drift", ec -> ec.getSpec().replicas = 2);
        StatefulSet scaled = org.awaitility.Awaitility.await("scaled to 2").atMost(TIMEOUT)
                .until(() -> client.apps().statefulSets().inNamespace(ns).withName("drift").get(),
                        sts -> sts.getSpec().getReplicas() == 2);
        assertThat(scaled.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage())
                .isEqualTo("registry.example.com/miner:2");
        assertThat(awaitEvent("drift", "Scaled").getNote()).isEqualTo("Scaled the executors from 1 to 2 nodes");
    }

    /**
     * A ResourceQuota (or an admission webhook) refuses the executor pods: no pod exists to say
     * why, only the StatefulSet controller's FailedCreate events. The conditions carry that cause.
     * This API server runs no controllers, so the event is written as the StatefulSet controller
     * writes it (core/v1, on the StatefulSet, repeated with a count).
     */
    @Test
    @Order(3)
    void podsTheControllerCannotCreateAreReportedWithTheCause() {
        Clusters.dbSecret(client, ns, "pw");
        Clusters.create(client, ns, Clusters.yaml("quota", "replicas: 2"));
        StatefulSet sts = org.awaitility.Awaitility.await("StatefulSet").atMost(TIMEOUT)
                .until(() -> client.apps().statefulSets().inNamespace(ns).withName("quota").get(), Objects::nonNull);
        String refusal = "create Pod quota-0 in StatefulSet quota failed error: pods \"quota-0\" is forbidden: exceeded"
                + " quota: compute, requested: limits.cpu=2, used: limits.cpu=0, limited: limits.cpu=1";
        String now = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        client.v1().events().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.EventBuilder()
                .withNewMetadata().withName("quota.failedcreate").endMetadata()
                .withNewInvolvedObject().withApiVersion("apps/v1").withKind("StatefulSet").withNamespace(ns)
                .withName("quota").withUid(sts.getMetadata().getUid()).endInvolvedObject()
                .withReason("FailedCreate").withType("Warning").withMessage(refusal).withCount(4)
                .withFirstTimestamp(now).withLastTimestamp(now)
                .withNewSource().withComponent("statefulset-controller").endSource().build()).create();

        ExecutorCluster ec = awaitCondition("quota", Conditions.READY, "False", "PodsNotCreated");
        assertThat(condition(ec, Conditions.READY).getMessage()).isEqualTo("0 of 2 executor nodes ready; 2 of 2"
                + " executor pods cannot be created: " + refusal);
        assertThat(condition(ec, Conditions.DEGRADED).getStatus()).isEqualTo("True");
        assertThat(condition(ec, Conditions.DEGRADED).getReason()).isEqualTo("PodsNotCreated");
    }

    @Test
    @Order(3)
    void conditionsFollowTheStatefulSet() {
        Clusters.dbSecret(client, ns, "pw");
        Clusters.create(client, ns, Clusters.yaml("status", "replicas: 2"));
        StatefulSet sts = await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("status").get());

        // As the StatefulSet controller would report a rollout half done...
        writeStatus(sts, 2, 1, 1, "rev-1", "rev-2");
        ExecutorCluster ec = awaitCondition("status", Conditions.PROGRESSING, "True", "RollingUpdate");
        assertThat(condition(ec, Conditions.READY).getStatus()).isEqualTo("False");
        assertThat(condition(ec, Conditions.READY).getMessage()).isEqualTo("1 of 2 executor nodes ready");

        // ...then complete.
        writeStatus(sts, 2, 2, 2, "rev-2", "rev-2");
        ec = awaitCondition("status", Conditions.READY, "True", "NodesReady");
        assertThat(condition(ec, Conditions.PROGRESSING).getReason()).isEqualTo("UpToDate");
        assertThat(ec.getStatus().readyReplicas).isEqualTo(2);
        assertThat(ec.getStatus().observedGeneration).isEqualTo(ec.getMetadata().getGeneration());

        // What the alerts read (DroverNodesNotReady, DroverScalingCapped, DroverAutoscalerSilent): the operator's gauges.
        String metrics = operatorMetrics();
        assertThat(metrics).contains("drover_cluster_nodes_ready{drover_cluster=\"status\",namespace=\"" + ns + "\"} 2.0",
                "drover_cluster_nodes_wanted{drover_cluster=\"status\",namespace=\"" + ns + "\"} 2.0",
                "drover_cluster_bottleneck{drover_cluster=\"status\",namespace=\"" + ns + "\",reason=\"",
                "drover_cluster_autoscaled{drover_cluster=\"status\",namespace=\"" + ns + "\"} 0.0");
        for (String series : operatorSeriesQueried()) {
            assertThat(metrics).as(series + ", read by the chart's alerts or dashboard").containsPattern("(?m)^" + series + "\\{");
        }
    }

    /**
     * A copy of the executor StatefulSet that kept its owner reference (kubectl get -o yaml,
     * renamed, applied, to debug) is related to the cluster by the informer too. The operator
     * asked for "the" StatefulSet and failed on two, in every pass and in its error status: the
     * status froze and spec edits were not applied.
     */
    @Test
    @Order(16)
    void aCopiedStatefulSetHoldsUpNothing() {
        Clusters.dbSecret(client, ns, "pw");
        Clusters.create(client, ns, Clusters.yaml("copied", "threads: 8"));
        StatefulSet sts = await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("copied").get());
        StatefulSet copy = new io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder(sts).editMetadata()
                .withName("copied-debug").withResourceVersion(null).withUid(null).withCreationTimestamp(null)
                .withManagedFields(List.of()).endMetadata().withStatus(null).build();
        client.resource(copy).create();
        edit("copied", ec -> ec.getSpec().threads = 16);
        ExecutorCluster applied = org.awaitility.Awaitility.await("the edit applied and observed").atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(200)).until(
                        () -> client.resources(ExecutorCluster.class).inNamespace(ns).withName("copied").get(),
                        ec -> ec.getStatus() != null && Objects.equals(ec.getStatus().observedGeneration, ec.getMetadata().getGeneration())
                                && "16".equals(settingsOf("copied").get("DROVER_THREADS")));
        assertThat(condition(applied, Conditions.DEGRADED).getReason()).as("no failed pass").isNotEqualTo("ReconcileFailed");
        assertThat(settingsOf("copied-debug")).as("the copy, left as it was").containsEntry("DROVER_THREADS", "8");
    }

    /** The operator's series (drover_cluster_*) that the chart's alert rules and dashboard read. */
    private static java.util.Set<String> operatorSeriesQueried() {
        java.util.Set<String> names = new java.util.TreeSet<>();
        java.nio.file.Path chart = java.nio.file.Path.of(System.getProperty("it.repo.root", "..")).resolve("charts/drover-operator");
        try {
            String read = java.nio.file.Files.readString(chart.resolve("templates/prometheusrule.yaml"))
                    + java.nio.file.Files.readString(chart.resolve("dashboards/drover-fleet.json"));
            var m = java.util.regex.Pattern.compile("\\b(drover_cluster_[a-z_]+)\\b").matcher(read);
            while (m.find()) {
                names.add(m.group(1));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertThat(names).as("the chart reads the operator's gauges").isNotEmpty();
        return names;
    }

    /**
     * Objects are named after the cluster, so a name can be taken by the user's own object: it
     * is left alone and the cluster says so. A forced server-side apply used to take it over (the
     * executors' selector merged into the user's Service, an owner reference that had deleting
     * the cluster delete it).
     */
    @Test
    @Order(4)
    void aNameTakenBySomeoneElsesObjectIsReportedAndThatObjectLeftAlone() {
        Clusters.dbSecret(client, ns, "pw");
        client.services().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.ServiceBuilder()
                .withNewMetadata().withName("billing").endMetadata()
                .withNewSpec().addToSelector("app", "billing").addNewPort().withPort(80).endPort().endSpec().build()).create();
        Clusters.create(client, ns, Clusters.yaml("billing", ""));
        ExecutorCluster ec = awaitCondition("billing", Conditions.DEGRADED, "True", "NameTaken");
        assertThat(condition(ec, Conditions.DEGRADED).getMessage()).contains("Service billing exists and is not this cluster's");
        var theirs = client.services().inNamespace(ns).withName("billing").get();
        assertThat(theirs.getSpec().getSelector()).as("the user's selector, untouched").isEqualTo(Map.of("app", "billing"));
        assertThat(theirs.getMetadata().getOwnerReferences()).as("not given to the cluster").isNullOrEmpty();
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("billing").get()).as("nothing written").isNull();

        client.resource(theirs).delete();
        await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("billing").get());
        awaitCondition("billing", Conditions.DEGRADED, "False", "AsExpected");
    }

    /**
     * The roll hash's key Secret is used only when it is the cluster's own and holds a key: a
     * user's Secret of that name is NameTaken and left alone; one the cluster owns without the
     * key (replaced by someone) leaves the fleet as it is until it is deleted.
     */
    @Test
    @Order(4)
    void aRollKeyThatIsNotTheClustersIsNeverUsed() {
        Clusters.dbSecret(client, ns, "pw");
        String userKey = java.util.Base64.getEncoder().encodeToString("the user's own".getBytes());
        client.secrets().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withNewMetadata().withName("squat-roll-key").endMetadata()
                .withData(Map.of("key", userKey)).build()).create();
        Clusters.create(client, ns, Clusters.yaml("squat", ""));
        ExecutorCluster ec = awaitCondition("squat", Conditions.DEGRADED, "True", "NameTaken");
        assertThat(condition(ec, Conditions.DEGRADED).getMessage()).contains("Secret squat-roll-key exists and is not this cluster's");
        var theirs = client.secrets().inNamespace(ns).withName("squat-roll-key").get();
        assertThat(theirs.getData()).as("the user's Secret, untouched").isEqualTo(Map.of("key", userKey));
        assertThat(theirs.getMetadata().getOwnerReferences()).isNullOrEmpty();
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("squat").get()).as("nothing written").isNull();

        client.resource(theirs).withGracePeriod(0).delete();
        StatefulSet sts = await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("squat").get());
        awaitCondition("squat", Conditions.DEGRADED, "False", "AsExpected");

        // Replaced by one the cluster owns but without a key: the fleet is left as it is, and the
        // condition says what to do. The operator recreates its key within a pass, so the test
        // deletes and creates until its own Secret is the one in place.
        var owner = client.resources(ExecutorCluster.class).inNamespace(ns).withName("squat").get();
        var replaced = new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withNewMetadata().withName("squat-roll-key")
                .addNewOwnerReference().withApiVersion(owner.getApiVersion()).withKind(owner.getKind())
                .withName("squat").withUid(owner.getMetadata().getUid()).withController(true).endOwnerReference()
                .endMetadata()
                .withData(Map.of("other", userKey)).build();
        org.awaitility.Awaitility.await("the replaced key in place").atMost(TIMEOUT).ignoreExceptions().until(() -> {
            client.secrets().inNamespace(ns).withName("squat-roll-key").withGracePeriod(0).delete();
            client.secrets().inNamespace(ns).resource(replaced).create();
            return true;
        });
        ec = awaitCondition("squat", Conditions.DEGRADED, "True", "SecretKeyNotFound");
        assertThat(condition(ec, Conditions.DEGRADED).getMessage()).contains("squat-roll-key", "delete it");
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("squat").get().getSpec())
                .as("the fleet as it was").isEqualTo(sts.getSpec());

        client.secrets().inNamespace(ns).withName("squat-roll-key").withGracePeriod(0).delete();
        awaitCondition("squat", Conditions.DEGRADED, "False", "AsExpected");
        assertThat(client.secrets().inNamespace(ns).withName("squat-roll-key").get().getData()).containsOnlyKeys("key");

        // The generated API tokens edited to lack a key the pods read: rolled onto it, every new
        // pod would fail to start. The fleet is left as it is, and the condition says what to do.
        StatefulSet before = client.apps().statefulSets().inNamespace(ns).withName("squat").get();
        client.secrets().inNamespace(ns).withName("squat-api").edit(secret -> {
            secret.getData().remove("readToken");
            return secret;
        });
        ec = awaitCondition("squat", Conditions.DEGRADED, "True", "SecretKeyNotFound");
        assertThat(condition(ec, Conditions.DEGRADED).getMessage()).contains("squat-api", "'readToken'", "delete it");
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("squat").get().getSpec())
                .as("the fleet as it was").isEqualTo(before.getSpec());
        client.secrets().inNamespace(ns).withName("squat-api").withGracePeriod(0).delete();
        awaitCondition("squat", Conditions.DEGRADED, "False", "AsExpected");
        assertThat(client.secrets().inNamespace(ns).withName("squat-api").get().getData()).containsKeys("token", "readToken");
    }

    @Test
    @Order(4)
    void aMissingSecretIsReportedAndNothingIsCreated() {
        Clusters.create(client, ns, Clusters.yaml("nosecret", ""));
        ExecutorCluster ec = awaitCondition("nosecret", Conditions.DEGRADED, "True", "SecretNotFound");
        assertThat(condition(ec, Conditions.DEGRADED).getMessage()).contains("jobs-db", "spec.database.credentialsSecret");
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("nosecret").get()).isNull();

        // Read again every secretRecheckInterval (2 s in tests): there is no Secret informer.
        Clusters.dbSecret(client, ns, "pw");
        await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("nosecret").get());
        awaitCondition("nosecret", Conditions.DEGRADED, "False", "AsExpected");
    }

    @Test
    @Order(5)
    void withoutKedaTheFleetKeepsItsSizeAndSaysWhy() {
        assertThat(client.apiextensions().v1().customResourceDefinitions().withName("scaledobjects.keda.sh").get()).isNull();
        Clusters.dbSecret(client, ns, "pw");
        Clusters.create(client, ns, Clusters.yaml("nokeda", "replicas: 3\nautoscaling: {enabled: true, minReplicas: 1, maxReplicas: 6}"));
        ExecutorCluster ec = awaitCondition("nokeda", Conditions.AUTOSCALING, "False", "KedaNotInstalled");
        assertThat(condition(ec, Conditions.AUTOSCALING).getMessage()).contains("the fleet keeps its current size");
        // A new StatefulSet starts at minReplicas; whatever scales it later keeps its count.
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("nokeda").get().getSpec().getReplicas()).isEqualTo(1);
        client.apps().statefulSets().inNamespace(ns).withName("nokeda").scale(4);
        String hash = awaitHash("nokeda", null);
        edit("nokeda", e -> {
            e.getSpec().threads = 16;
            e.getSpec().replicas = 2;
        });
        awaitHash("nokeda", hash);
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("nokeda").get().getSpec().getReplicas()).isEqualTo(4);
    }

    @Test
    @Order(6)
    void withKedaTheScaledObjectOwnsTheReplicaCount() {
        TestCluster.get().installKedaCrds();
        Clusters.dbSecret(client, ns, "pw");
        Clusters.create(client, ns, Clusters.yaml("auto", """
                replicas: 2
                schema: payments
                queueSize: 256
                autoscaling: {enabled: true, minReplicas: 1, maxReplicas: 5, targetBacklogPerNode: 500, activationBacklog: 10, pollingInterval: 10s, cooldownPeriod: 2m, scaleDownStabilizationWindow: 45s}
                """));
        GenericKubernetesResource so = await("ScaledObject", () -> keda("ScaledObject", "auto"));
        GenericKubernetesResource ta = await("TriggerAuthentication", () -> keda("TriggerAuthentication", "auto-db"));
        Map<String, Object> spec = map(so.getAdditionalProperties().get("spec"));
        assertThat(spec).containsEntry("minReplicaCount", 1).containsEntry("maxReplicaCount", 5)
                .containsEntry("pollingInterval", 10).containsEntry("cooldownPeriod", 120);
        assertThat(spec.get("advanced").toString()).isEqualTo("{horizontalPodAutoscalerConfig={behavior={scaleDown={stabilizationWindowSeconds=45}}}}");
        assertThat(map(spec.get("scaleTargetRef"))).containsEntry("kind", "StatefulSet").containsEntry("name", "auto");
        Map<String, Object> trigger = map(((java.util.List<?>) spec.get("triggers")).get(0));
        Map<String, Object> md = map(trigger.get("metadata"));
        assertThat(trigger).containsEntry("type", "postgresql");
        assertThat(md).containsEntry("host", "db.example.internal").containsEntry("dbName", "jobs")
                .as("KEDA's connection is encrypted like the executors'").containsEntry("sslmode", "require")
                .containsEntry("targetQueryValue", "500").containsEntry("activationTargetQueryValue", "10");
        // The query itself (predicates, caps) is BacklogQueryTest's; here: built from the spec as the server defaulted it.
        var applied = client.resources(ExecutorCluster.class).inNamespace(ns).withName("auto").get().getSpec();
        assertThat((String) md.get("query")).isEqualTo(BacklogQuery.sql("payments", applied.autoscaling, applied.threads))
                .contains("limit 2501)", "least(n, 8)");
        // The jobs nodes run, per threads: the HPA takes the larger count, so busy nodes are kept.
        Map<String, Object> running = map(((java.util.List<?>) spec.get("triggers")).get(1));
        Map<String, Object> runningMd = map(running.get("metadata"));
        assertThat(running).containsEntry("name", "running-jobs").containsEntry("metricType", "AverageValue");
        assertThat(runningMd).containsEntry("query", BacklogQuery.runningSql("payments", applied.threads))
                .containsEntry("targetQueryValue", String.valueOf(applied.threads)).containsEntry("activationTargetQueryValue", "0")
                .containsEntry("host", "db.example.internal").containsEntry("sslmode", "require");
        assertThat(ta.getAdditionalProperties().get("spec").toString()).contains("parameter=password", "name=jobs-db");
        assertThat(ta.getMetadata().getOwnerReferences()).singleElement().satisfies(r -> assertThat(r.getKind()).isEqualTo("ExecutorCluster"));

        // A new StatefulSet starts at minReplicas; then KEDA's HPA sets 4 through /scale.
        StatefulSet sts = await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("auto").get());
        assertThat(sts.getSpec().getReplicas()).isEqualTo(1);
        // Only KEDA's CRDs here, no KEDA operator: nothing takes the ScaledObject up, and the
        // condition says so (it once said KedaScaling, and a cluster at 0 nodes said Ready).
        ExecutorCluster untaken = awaitCondition("auto", Conditions.AUTOSCALING, "False", "ScaledObjectNotReady");
        assertThat(condition(untaken, Conditions.AUTOSCALING).getMessage()).contains("is KEDA's operator running?");
        // KEDA takes it up: Ready.
        GenericKubernetesResource taken = keda("ScaledObject", "auto");
        taken.getAdditionalProperties().put("status", Map.of("conditions", java.util.List.of(Map.of("type", "Ready",
                "status", "True", "reason", "ScaledObjectReady", "message", "ScaledObject is defined correctly and is ready for scaling"))));
        client.genericKubernetesResources("keda.sh/v1alpha1", "ScaledObject").inNamespace(ns).resource(taken).updateStatus();
        edit("auto", ec -> ec.getSpec().threads = 24);
        awaitCondition("auto", Conditions.AUTOSCALING, "True", "KedaScaling");

        // Someone's own HPA beside KEDA's: Kubernetes scales with neither; said, not KedaScaling.
        hpaOnAuto("beside");
        ExecutorCluster conflicting = awaitCondition("auto", Conditions.AUTOSCALING, "False", Autoscaler.CONFLICTING_AUTOSCALER);
        assertThat(condition(conflicting, Conditions.AUTOSCALING).getMessage()).contains("HorizontalPodAutoscaler beside");
        assertThat(condition(conflicting, Conditions.DEGRADED).getReason()).isEqualTo(Autoscaler.CONFLICTING_AUTOSCALER);
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns).withName("beside").delete();
        awaitCondition("auto", Conditions.AUTOSCALING, "True", "KedaScaling");
        client.apps().statefulSets().inNamespace(ns).withName("auto").scale(4);

        // Settings change: the pods roll, the autoscaler's count stays.
        String hash = awaitHash("auto", null);
        edit("auto", ec -> ec.getSpec().threads = 32);
        awaitHash("auto", hash);
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("auto").get().getSpec().getReplicas()).isEqualTo(4);

        // Its managed-by label removed by hand: out of the informer's view, the StatefulSet was
        // taken for missing and scaled to minReplicas at every pass, against KEDA's count. Now
        // the count stays and the label comes back.
        client.apps().statefulSets().inNamespace(ns).withName("auto").edit(st -> {
            st.getMetadata().getLabels().remove(io.drover.operator.resources.Labels.MANAGED_BY);
            return st;
        });
        // (A pass comes within secretRecheckInterval, 2 s here, whatever the informer saw.)
        org.awaitility.Awaitility.await("the label back").atMost(TIMEOUT).until(() -> client.apps().statefulSets().inNamespace(ns)
                .withName("auto").get().getMetadata().getLabels().containsKey(io.drover.operator.resources.Labels.MANAGED_BY));
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("auto").get().getSpec().getReplicas())
                .as("KEDA's count, kept").isEqualTo(4);

        // KEDA marks its ScaledObject not ready (a trigger error: the database is unreachable):
        // the fleet keeps its size, and the condition says why. Never spec.replicas.
        GenericKubernetesResource notReady = keda("ScaledObject", "auto");
        notReady.getAdditionalProperties().put("status", Map.of("conditions", java.util.List.of(Map.of("type", "Ready",
                "status", "False", "reason", "ScaledObjectCheckFailed", "message", "error inspecting postgreSQL"))));
        client.genericKubernetesResources("keda.sh/v1alpha1", "ScaledObject").inNamespace(ns).resource(notReady).updateStatus();
        edit("auto", ec -> ec.getSpec().threads = 48);
        ExecutorCluster broken = awaitCondition("auto", Conditions.AUTOSCALING, "False", "ScaledObjectNotReady");
        assertThat(condition(broken, Conditions.AUTOSCALING).getMessage()).contains("error inspecting postgreSQL")
                .contains("the fleet keeps its current size");
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("auto").get().getSpec().getReplicas()).isEqualTo(4);

        // Autoscaling off while KEDA's HPA still targets the StatefulSet (KEDA removes it after its
        // ScaledObject): the count stays until the HPA is gone, then spec.replicas rules again.
        hpaOnAuto("keda-hpa-auto");
        edit("auto", ec -> ec.getSpec().autoscaling.enabled = false);
        awaitCondition("auto", Conditions.AUTOSCALING, "False", "Disabling");
        org.awaitility.Awaitility.await().atMost(TIMEOUT).until(() -> keda("ScaledObject", "auto") == null && keda("TriggerAuthentication", "auto-db") == null);
        // A pass after the ScaledObject is gone, the HPA still there (an edit forces one; its
        // written template shows it ran): the count is still the HPA's.
        String beforePass = awaitHash("auto", null);
        edit("auto", ec -> ec.getSpec().threads = 56);
        awaitHash("auto", beforePass);
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("auto").get().getSpec().getReplicas()).isEqualTo(4);
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns).withName("keda-hpa-auto").delete();
        edit("auto", ec -> ec.getSpec().threads = 64);
        awaitCondition("auto", Conditions.AUTOSCALING, "False", "Disabled");
        org.awaitility.Awaitility.await().atMost(TIMEOUT).until(() -> client.apps().statefulSets().inNamespace(ns).withName("auto").get().getSpec().getReplicas() == 2);

        // Someone's own HPA on the StatefulSet: the operator leaves the count to it rather than
        // write spec.replicas back at every pass, and says so (it once waited for it as for KEDA's).
        hpaOnAuto("mine");
        edit("auto", ec -> ec.getSpec().threads = 32);
        ExecutorCluster theirs = awaitCondition("auto", Conditions.AUTOSCALING, "False", Autoscaler.SCALED_BY_ANOTHER_AUTOSCALER);
        assertThat(condition(theirs, Conditions.AUTOSCALING).getMessage()).contains("HorizontalPodAutoscaler mine scales the StatefulSet");
        assertThat(condition(theirs, Conditions.DEGRADED).getMessage()).as("Degraded, of a spec applied but for its replicas")
                .isEqualTo("The operator applied the latest spec except spec.replicas, which another autoscaler decides"
                        + " (see the Autoscaling condition)");
        client.apps().statefulSets().inNamespace(ns).withName("auto").scale(5);
        String before = awaitHash("auto", null);
        edit("auto", ec -> ec.getSpec().threads = 48);
        awaitHash("auto", before);
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("auto").get().getSpec().getReplicas())
                .as("the other autoscaler's count").isEqualTo(5);

        // Someone's own ScaledObject of the cluster's name, and KEDA's HPA for it: another
        // autoscaler, not KEDA's HPA of this cluster being removed ("Disabling" for good).
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns).withName("mine").delete();
        GenericKubernetesResource own = new GenericKubernetesResource();
        own.setApiVersion("keda.sh/v1alpha1");
        own.setKind("ScaledObject");
        own.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName("auto").build());
        own.setAdditionalProperties(Map.of("spec", Map.of("scaleTargetRef", Map.of("kind", "StatefulSet", "name", "auto"),
                "triggers", java.util.List.of(Map.of("type", "cpu", "metadata", Map.of("value", "50"))))));
        client.genericKubernetesResources("keda.sh/v1alpha1", "ScaledObject").inNamespace(ns).resource(own).create();
        hpaOnAuto("keda-hpa-auto");
        edit("auto", ec -> ec.getSpec().threads = 40);
        org.awaitility.Awaitility.await("the other ScaledObject named").atMost(TIMEOUT).until(() -> {
            var c = condition(client.resources(ExecutorCluster.class).inNamespace(ns).withName("auto").get(), Conditions.AUTOSCALING);
            return Autoscaler.SCALED_BY_ANOTHER_AUTOSCALER.equals(c.getReason())
                    && c.getMessage().contains("ScaledObject auto, not this cluster's, scales the StatefulSet");
        });
        assertThat(keda("ScaledObject", "auto")).as("someone's own, left alone").isNotNull();
    }

    /** Writes Ready True into the ScaledObject's status, as KEDA's operator does once it takes it up. */
    private void markReady(GenericKubernetesResource so) {
        so.getAdditionalProperties().put("status", Map.of("conditions", List.of(Map.of("type", "Ready", "status", "True",
                "reason", "ScaledObjectReady", "message", "ScaledObject is defined correctly and is ready for scaling"))));
        client.genericKubernetesResources("keda.sh/v1alpha1", "ScaledObject").inNamespace(ns).resource(so).updateStatus();
    }

    /**
     * A paused ScaledObject (KEDA's annotation, for maintenance) keeps its Ready condition True:
     * a cluster KEDA had scaled to 0 said Ready and KedaScaling while nothing would start a node
     * for the jobs coming due.
     */
    @Test
    void aPausedScaledObjectIsNotTakenForAWorkingAutoscaler() {
        TestCluster.get().installKedaCrds();
        Clusters.dbSecret(client, ns, "pw");
        Clusters.create(client, ns, Clusters.yaml("paused", "autoscaling: {enabled: true, minReplicas: 0, maxReplicas: 4}"));
        markReady(await("ScaledObject", () -> keda("ScaledObject", "paused")));
        var scaledObjects = client.genericKubernetesResources("keda.sh/v1alpha1", "ScaledObject").inNamespace(ns);
        ExecutorCluster scaling = awaitCondition("paused", Conditions.AUTOSCALING, "True", "KedaScaling");
        assertThat(condition(scaling, Conditions.READY).getReason()).isEqualTo("ScaledToZero");

        scaledObjects.withName("paused").edit(o -> {
            o.getMetadata().setAnnotations(Map.of("autoscaling.keda.sh/paused", "true"));
            return o;
        });
        ExecutorCluster paused = awaitCondition("paused", Conditions.AUTOSCALING, "False", Autoscaler.SCALED_OBJECT_PAUSED);
        assertThat(condition(paused, Conditions.AUTOSCALING).getMessage()).contains("autoscaling.keda.sh/paused: true");
        assertThat(condition(paused, Conditions.READY).getStatus()).isEqualTo("False");
        assertThat(condition(paused, Conditions.READY).getReason()).isEqualTo("ScaledToZeroWithoutAutoscaler");
    }

    /**
     * KEDA's metrics server down: the ScaledObject stays Ready (KEDA's operator polls the trigger
     * itself), while KEDA's HPA cannot get its metric and scales nothing. The cluster said
     * KedaScaling; it says why the HPA cannot scale, Degraded, until the HPA can again.
     */
    @Test
    void kedasHpaThatCannotScaleIsReportedThoughTheScaledObjectIsReady() {
        TestCluster.get().installKedaCrds();
        Clusters.dbSecret(client, ns, "pw");
        Clusters.create(client, ns, Clusters.yaml("nometric", "autoscaling: {enabled: true, minReplicas: 1, maxReplicas: 4}"));
        markReady(await("ScaledObject", () -> keda("ScaledObject", "nometric")));
        var hpas = client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns);
        var hpa = hpas.resource(new HorizontalPodAutoscalerBuilder()
                .withNewMetadata().withName("keda-hpa-nometric").endMetadata()
                .withNewSpec().withMinReplicas(1).withMaxReplicas(4)
                .withNewScaleTargetRef().withApiVersion("apps/v1").withKind("StatefulSet").withName("nometric").endScaleTargetRef()
                .endSpec().build()).create();
        awaitCondition("nometric", Conditions.AUTOSCALING, "True", "KedaScaling");

        hpa.setStatus(new io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatusBuilder()
                .withCurrentReplicas(1).withDesiredReplicas(1)
                .addNewCondition().withType("ScalingActive").withStatus("False").withReason("FailedGetExternalMetric")
                .withMessage("the HPA was unable to compute the replica count: unable to get external metric")
                .withLastTransitionTime(java.time.Instant.now().minusSeconds(61).toString()).endCondition().build());
        hpa = hpas.resource(hpa).updateStatus();
        ExecutorCluster failing = awaitCondition("nometric", Conditions.AUTOSCALING, "False", Autoscaler.KEDA_HPA_NOT_SCALING);
        assertThat(condition(failing, Conditions.AUTOSCALING).getMessage())
                .contains("keda-hpa-nometric cannot scale the StatefulSet (ScalingActive False, FailedGetExternalMetric")
                .contains("keda-operator-metrics-apiserver");
        assertThat(condition(failing, Conditions.DEGRADED).getStatus()).isEqualTo("True");
        assertThat(condition(failing, Conditions.DEGRADED).getReason()).isEqualTo(Autoscaler.KEDA_HPA_NOT_SCALING);

        hpa.getStatus().getConditions().getFirst().setStatus("True");
        hpa.getStatus().getConditions().getFirst().setReason("ValidMetricFound");
        hpas.resource(hpa).updateStatus();
        awaitCondition("nometric", Conditions.AUTOSCALING, "True", "KedaScaling");
    }

    /**
     * Autoscaling turned off while KEDA's operator is down: the deleted ScaledObject waits for
     * KEDA's finalizer, so KEDA's HPA keeps the node count. That said "Disabling" for good, never
     * Degraded; past kedaRemovalPatience (3 s in tests) it is Degraded, naming the finalizer.
     */
    @Test
    void aScaledObjectKedaNeverRemovesIsReported() {
        TestCluster.get().installKedaCrds();
        Clusters.dbSecret(client, ns, "pw");
        Clusters.create(client, ns, Clusters.yaml("unkeda", "autoscaling: {enabled: true, minReplicas: 1, maxReplicas: 4}"));
        await("ScaledObject", () -> keda("ScaledObject", "unkeda"));
        var scaledObjects = client.genericKubernetesResources("keda.sh/v1alpha1", "ScaledObject").inNamespace(ns);
        scaledObjects.withName("unkeda").edit(so -> {
            so.getMetadata().setFinalizers(List.of("finalizer.keda.sh")); // as KEDA's operator adds it
            return so;
        });
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns).resource(new HorizontalPodAutoscalerBuilder()
                .withNewMetadata().withName("keda-hpa-unkeda").endMetadata()
                .withNewSpec().withMinReplicas(1).withMaxReplicas(4)
                .withNewScaleTargetRef().withApiVersion("apps/v1").withKind("StatefulSet").withName("unkeda").endScaleTargetRef()
                .endSpec().build()).create();

        edit("unkeda", ec -> ec.getSpec().autoscaling.enabled = false);
        ExecutorCluster stuck = awaitCondition("unkeda", Conditions.AUTOSCALING, "False", Autoscaler.SCALED_OBJECT_NOT_REMOVED);
        assertThat(condition(stuck, Conditions.AUTOSCALING).getMessage()).contains("ScaledObject unkeda, deleted at")
                .contains("[finalizer.keda.sh]").contains("KEDA's operator");
        assertThat(condition(stuck, Conditions.DEGRADED).getStatus()).isEqualTo("True");
        assertThat(condition(stuck, Conditions.DEGRADED).getReason()).isEqualTo(Autoscaler.SCALED_OBJECT_NOT_REMOVED);

        // KEDA's operator back: it removes its HPA, then its finalizer.
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns).withName("keda-hpa-unkeda").delete();
        scaledObjects.withName("unkeda").edit(so -> {
            so.getMetadata().setFinalizers(List.of());
            return so;
        });
        ExecutorCluster done = awaitCondition("unkeda", Conditions.AUTOSCALING, "False", "Disabled");
        assertThat(condition(done, Conditions.DEGRADED).getStatus()).isEqualTo("False");
    }

    /** A HorizontalPodAutoscaler of the given name on the StatefulSet "auto" (KEDA's, by its name, or someone's own). */
    private void hpaOnAuto(String name) {
        client.autoscaling().v2().horizontalPodAutoscalers().inNamespace(ns).resource(new HorizontalPodAutoscalerBuilder()
                .withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withMinReplicas(1).withMaxReplicas(5)
                .withNewScaleTargetRef().withApiVersion("apps/v1").withKind("StatefulSet").withName("auto").endScaleTargetRef()
                .endSpec().build()).create();
    }

    @Test
    @Order(7)
    void deletingTheClusterRemovesEverythingItOwns() {
        TestCluster.get().ensureGarbageCollector();
        Clusters.dbSecret(client, ns, "pw");
        Clusters.create(client, ns, Clusters.yaml("gone", "autoscaling: {enabled: true}"));
        await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("gone").get());
        await("ScaledObject", () -> keda("ScaledObject", "gone"));

        client.resources(ExecutorCluster.class).inNamespace(ns).withName("gone").delete();
        org.awaitility.Awaitility.await().atMost(TIMEOUT).untilAsserted(() -> {
            assertThat(client.apps().statefulSets().inNamespace(ns).list().getItems()).isEmpty();
            assertThat(client.configMaps().inNamespace(ns).withLabel("app.kubernetes.io/instance", "gone").list().getItems()).isEmpty();
            assertThat(client.services().inNamespace(ns).list().getItems()).isEmpty();
            assertThat(client.policy().v1().podDisruptionBudget().inNamespace(ns).list().getItems()).isEmpty();
            assertThat(keda("ScaledObject", "gone")).isNull();
            assertThat(keda("TriggerAuthentication", "gone-db")).isNull();
        });
        // The user's Secret is not the operator's to delete.
        assertThat(client.secrets().inNamespace(ns).withName("jobs-db").get()).isNotNull();
    }

    /**
     * A cluster deleted and created again while KEDA's operator is down: its earlier ScaledObject
     * waits for KEDA's finalizer, and blocks the new cluster's name. The cluster said it "exists
     * and is not this cluster's: rename the ExecutorCluster", sending the user after the wrong
     * thing; it now says the object is being deleted, what it waits for, and that the cluster goes
     * on once it is gone, which it does.
     */
    @Test
    @Order(7)
    void anEarlierClustersObjectBeingDeletedIsNamedAsSuchAndTheClusterGoesOnOnceItIsGone() {
        TestCluster.get().ensureGarbageCollector();
        TestCluster.get().installKedaCrds();
        Clusters.dbSecret(client, ns, "pw");
        String yaml = Clusters.yaml("again", "autoscaling: {enabled: true}");
        Clusters.create(client, ns, yaml);
        await("ScaledObject", () -> keda("ScaledObject", "again"));
        var scaledObjects = client.genericKubernetesResources("keda.sh/v1alpha1", "ScaledObject").inNamespace(ns);
        scaledObjects.withName("again").edit(so -> {
            so.getMetadata().setFinalizers(List.of("finalizer.keda.sh")); // as KEDA's operator adds it
            return so;
        });
        client.resources(ExecutorCluster.class).inNamespace(ns).withName("again").delete();
        // The garbage collector deletes the cluster's objects; the ScaledObject's deletion waits
        // on KEDA's finalizer, KEDA's operator being down. (KEDA's objects are deleted here as the
        // collector does it: it may take a while to discover kinds installed a moment ago.)
        scaledObjects.withName("again").delete();
        org.awaitility.Awaitility.await("the old cluster and its StatefulSet gone").atMost(TIMEOUT).until(() ->
                client.resources(ExecutorCluster.class).inNamespace(ns).withName("again").get() == null
                        && client.apps().statefulSets().inNamespace(ns).withName("again").get() == null);
        var triggerAuthentications = client.genericKubernetesResources("keda.sh/v1alpha1", "TriggerAuthentication").inNamespace(ns);
        triggerAuthentications.withName("again-db").delete(); // after the old cluster's last pass, which may write it
        org.awaitility.Awaitility.await("its TriggerAuthentication gone").atMost(TIMEOUT)
                .until(() -> triggerAuthentications.withName("again-db").get() == null);
        assertThat(keda("ScaledObject", "again").getMetadata().getDeletionTimestamp()).as("terminating").isNotNull();

        Clusters.create(client, ns, yaml);
        ExecutorCluster blocked = awaitCondition("again", Conditions.DEGRADED, "True", "NameTaken");
        assertThat(condition(blocked, Conditions.DEGRADED).getMessage())
                .contains("ScaledObject again is being deleted (since ")
                .contains("waiting for its finalizers [finalizer.keda.sh]").contains("is KEDA's operator running?")
                .contains("it writes its own once those are gone").doesNotContain("rename");

        // KEDA's operator back: it removes its finalizer, and the new cluster is written whole.
        scaledObjects.withName("again").edit(so -> {
            so.getMetadata().setFinalizers(List.of());
            return so;
        });
        awaitCondition("again", Conditions.DEGRADED, "False", "AsExpected");
        ExecutorCluster current = client.resources(ExecutorCluster.class).inNamespace(ns).withName("again").get();
        assertThat(keda("ScaledObject", "again").getMetadata().getOwnerReferences()).as("the new cluster's")
                .anyMatch(r -> r.getUid().equals(current.getMetadata().getUid()));
    }

    @Test
    void aDrainMayEvictAnExecutorThatIsNotReadyButNoReadyOneBeyondTheBudget() {
        Clusters.dbSecret(client, ns, "pw");
        Clusters.create(client, ns, Clusters.yaml("drained", "replicas: 3"));
        PodDisruptionBudget pdb = await("PDB", () -> client.policy().v1().podDisruptionBudget().inNamespace(ns).withName("drained").get());
        assertThat(pdb.getSpec().getUnhealthyPodEvictionPolicy()).isEqualTo("AlwaysAllow");

        // Three executor pods, running, as the kubelet and the disruption controller (neither runs
        // here) would report them when two nodes are not ready (their database unreachable, say):
        // the budget (3 expected, maxUnavailable 1) needs 2 healthy and has 1.
        for (String name : List.of("drained-0", "drained-1", "drained-2")) {
            var pod = client.pods().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.PodBuilder()
                    .withNewMetadata().withName(name).withLabels(pdb.getSpec().getSelector().getMatchLabels()).endMetadata()
                    .withNewSpec().addNewContainer().withName("executor").withImage("localhost/drover-executor:0.1.0").endContainer().endSpec()
                    .build()).create();
            pod.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Running")
                    .addNewCondition().withType("Ready").withStatus(name.equals("drained-2") ? "True" : "False").endCondition().build());
            client.pods().inNamespace(ns).resource(pod).updateStatus();
        }
        PodDisruptionBudget current = client.policy().v1().podDisruptionBudget().inNamespace(ns).withName("drained").get();
        current.setStatus(new io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatusBuilder()
                .withObservedGeneration(current.getMetadata().getGeneration())
                .withExpectedPods(3).withCurrentHealthy(1).withDesiredHealthy(2).withDisruptionsAllowed(0).build());
        client.policy().v1().podDisruptionBudget().inNamespace(ns).resource(current).updateStatus();

        // Under the default policy (IfHealthyBudget) the API server refuses to evict an unready
        // pod while the budget is unmet, so a drain of the node under it hangs until someone
        // deletes the pod by hand.
        assertThat(client.pods().inNamespace(ns).withName("drained-0").evict()).as("an unready executor is evicted").isTrue();
        assertThat(client.pods().inNamespace(ns).withName("drained-2").evict()).as("the ready one is still guarded by the budget").isFalse();
    }

    // --- helpers -------------------------------------------------------------------------

    /** A ValidatingAdmissionPolicy (and its binding) refusing every Service written in this test's namespace. */
    private void refuseServices(String name) {
        refuse(name, "", "services", "no Services in this namespace");
        // The API server takes up a policy asynchronously: wait until it refuses.
        var probe = new io.fabric8.kubernetes.api.model.ServiceBuilder().withNewMetadata().withName("probe").endMetadata()
                .withNewSpec().addNewPort().withPort(80).endPort().endSpec().build();
        org.awaitility.Awaitility.await("the policy refusing Services").atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    try {
                        client.services().inNamespace(ns).resource(probe).dryRun().create();
                        return false;
                    } catch (KubernetesClientException e) {
                        return e.getMessage().contains("no Services in this namespace");
                    }
                });
    }

    /** An admission policy that refuses every create and update of a resource in this test's namespace. */
    private void refuse(String name, String group, String resource, String message) {
        var admission = client.admissionRegistration().v1();
        admission.validatingAdmissionPolicies().resource(new io.fabric8.kubernetes.api.model.admissionregistration.v1
                .ValidatingAdmissionPolicyBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withFailurePolicy("Fail")
                .withNewMatchConstraints().addNewResourceRule().withApiGroups(group).withApiVersions("*")
                .withOperations("CREATE", "UPDATE").withResources(resource).endResourceRule().endMatchConstraints()
                .addNewValidation().withExpression("false").withMessage(message).endValidation()
                .endSpec().build()).create();
        admission.validatingAdmissionPolicyBindings().resource(new io.fabric8.kubernetes.api.model.admissionregistration.v1
                .ValidatingAdmissionPolicyBindingBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withPolicyName(name).withValidationActions("Deny")
                .withNewMatchResources().withNewNamespaceSelector().addToMatchLabels("kubernetes.io/metadata.name", ns)
                .endNamespaceSelector().endMatchResources().endSpec().build()).create();
    }

    private void unrefuse(String name) {
        client.admissionRegistration().v1().validatingAdmissionPolicyBindings().withName(name).delete();
        client.admissionRegistration().v1().validatingAdmissionPolicies().withName(name).delete();
    }

    private String operatorMetrics() {
        try (var http = java.net.http.HttpClient.newHttpClient()) {
            return http.send(java.net.http.HttpRequest.newBuilder(metricsUrl.toURI()).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private <T> T await(String what, Supplier<T> get) {
        return org.awaitility.Awaitility.await(what).atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                .until(get::get, v -> v != null);
    }

    private GenericKubernetesResource keda(String kind, String name) {
        return client.genericKubernetesResources("keda.sh/v1alpha1", kind).inNamespace(ns).withName(name).get();
    }

    /**
     * A ValidatingAdmissionPolicy refusing, as invalid (422, as the API server's own checks do),
     * StatefulSets of this test's namespace whose containers request example.com/widgets; loaded
     * by the API server when this returns. Returns its YAML, for deleting it.
     */
    private String refuseWidgets() {
        String policy = """
                apiVersion: admissionregistration.k8s.io/v1
                kind: ValidatingAdmissionPolicy
                metadata: {name: %1$s}
                spec:
                  failurePolicy: Fail
                  matchConstraints:
                    resourceRules: [{apiGroups: [apps], apiVersions: ["*"], operations: [CREATE, UPDATE], resources: [statefulsets]}]
                  validations:
                    - expression: "!object.spec.template.spec.containers.exists(c, has(c.resources) && has(c.resources.requests) && 'example.com/widgets' in c.resources.requests)"
                      message: "example.com/widgets are not for executors (a policy of ExecutorClusterReconcilerTest)"
                      reason: Invalid
                ---
                apiVersion: admissionregistration.k8s.io/v1
                kind: ValidatingAdmissionPolicyBinding
                metadata: {name: %1$s}
                spec:
                  policyName: %1$s
                  validationActions: [Deny]
                  matchResources: {namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: %2$s}}}
                """.formatted("refuse-widgets-" + ns, ns);
        client.resourceList(policy).serverSideApply();
        StatefulSet probe = new io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder().withNewMetadata().withName("widgets-probe")
                .withNamespace(ns).endMetadata().withNewSpec().withNewSelector().addToMatchLabels("app", "probe").endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", "probe").endMetadata().withNewSpec()
                .addNewContainer().withName("c").withImage("probe").withNewResources()
                .addToRequests("example.com/widgets", new io.fabric8.kubernetes.api.model.Quantity("1"))
                .addToLimits("example.com/widgets", new io.fabric8.kubernetes.api.model.Quantity("1")).endResources().endContainer()
                .endSpec().endTemplate().endSpec().build();
        org.awaitility.Awaitility.await("the test's policy refusing example.com/widgets").atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(200)).until(() -> {
                    try {
                        client.resource(probe).dryRun().create();
                        return false;
                    } catch (KubernetesClientException e) {
                        return e.getCode() == 422 && e.getMessage().contains("example.com/widgets are not for executors");
                    }
                });
        return policy;
    }

    /** Edits like kubectl edit: read, change, write; again on a conflict with the operator's status writes. */
    private void edit(String name, java.util.function.Consumer<ExecutorCluster> change) {
        org.awaitility.Awaitility.await("edit " + name).atMost(TIMEOUT).ignoreException(KubernetesClientException.class)
                .until(() -> {
                    client.resources(ExecutorCluster.class).inNamespace(ns).withName(name).edit(ec -> {
                        change.accept(ec);
                        return ec;
                    });
                    return true;
                });
    }

    @Test
    @Order(8)
    void theRollingHashRevealsNothingOfThePassword() {
        // Two clusters that read the very same values (one database Secret, one API token Secret):
        // a plain hash of the values would be equal for both (and guessable offline); the hash of
        // each is keyed with its own roll key, so they differ.
        Clusters.dbSecret(client, ns, "twin-db", "the-same-password", true);
        client.secrets().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withNewMetadata().withName("twin-token").withLabels(Map.of(Labels.SECRET_OPT_IN, "true")).endMetadata()
                .withStringData(Map.of("token", "the-same-token")).build()).serverSideApply();
        for (String name : List.of("twin-a", "twin-b")) {
            Clusters.create(client, ns, Clusters.yaml(name, """
                    database: {host: db.example.internal, name: jobs, credentialsSecret: {name: twin-db}}
                    apiTokenSecret: {name: twin-token, key: token}
                    """));
        }
        awaitHash("twin-a", null);
        awaitHash("twin-b", null);
        String a = client.apps().statefulSets().inNamespace(ns).withName("twin-a").get().getMetadata().getAnnotations()
                .get(RollHashes.SECRETS_HASH);
        String b = client.apps().statefulSets().inNamespace(ns).withName("twin-b").get().getMetadata().getAnnotations()
                .get(RollHashes.SECRETS_HASH);
        assertThat(a).isNotBlank();
        assertThat(b).isNotBlank().isNotEqualTo(a);
    }

    @Test
    @Order(9)
    void aSecretThatDidNotOptInIsNotUsed() {
        // An author may name any Secret of the namespace and choose database.host: only Secrets
        // labelled for ExecutorClusters may be sent there.
        Clusters.dbSecret(client, ns, "jobs-db", "pw", false);
        Clusters.create(client, ns, Clusters.yaml("optin", ""));
        ExecutorCluster ec = awaitCondition("optin", Conditions.DEGRADED, "True", "SecretNotOptedIn");
        assertThat(condition(ec, Conditions.DEGRADED).getMessage())
                .contains("jobs-db", "spec.database.credentialsSecret", "drover.io/executor-secret=true");
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("optin").get()).isNull();

        Clusters.dbSecret(client, ns, "jobs-db", "pw", true);
        await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("optin").get());
        awaitCondition("optin", Conditions.DEGRADED, "False", "AsExpected");
    }

    /**
     * A handler's secret (a webhook URL with its token in the path, a downstream API key) reaches
     * the executors as an env variable from a Secret, not as a plain value in the pod template:
     * only from a Secret that opted in, its rotation rolls the executors, and a value the
     * executor's configuration would expand is refused as it is in a plain value.
     */
    @Test
    @Order(9)
    void anEnvVariableFromASecretIsUsedOnlyIfItOptedIn() {
        Clusters.dbSecret(client, ns, "pw");
        hookSecret("https://hooks.example/T0/B0/first", false);
        Clusters.create(client, ns, Clusters.yaml("hooked",
                "env: [{name: DROVER_HTTP_URL, valueFrom: {secretKeyRef: {name: hooks, key: url}}}]"));
        ExecutorCluster ec = awaitCondition("hooked", Conditions.DEGRADED, "True", "SecretNotOptedIn");
        assertThat(condition(ec, Conditions.DEGRADED).getMessage())
                .contains("hooks", "spec.env[0].valueFrom.secretKeyRef", "drover.io/executor-secret=true");
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("hooked").get()).isNull();

        hookSecret("https://hooks.example/T0/B0/first", true);
        String first = awaitHash("hooked", null);
        StatefulSet sts = client.apps().statefulSets().inNamespace(ns).withName("hooked").get();
        var url = sts.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv().stream()
                .filter(e -> e.getName().equals("DROVER_HTTP_URL")).findFirst().orElseThrow();
        assertThat(url.getValue()).isNull();
        assertThat(url.getValueFrom().getSecretKeyRef().getName()).isEqualTo("hooks");
        assertThat(url.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("url");
        assertThat(Serialization.asYaml(sts)).doesNotContain("hooks.example");
        awaitCondition("hooked", Conditions.DEGRADED, "False", "AsExpected");

        hookSecret("https://hooks.example/T0/B0/rotated", true);
        assertThat(awaitHash("hooked", first)).isNotEqualTo(first);

        hookSecret("https://x.example/?t=${drover.api.token}", true);
        ec = awaitCondition("hooked", Conditions.DEGRADED, "True", "SecretValueRefused");
        assertThat(condition(ec, Conditions.DEGRADED).getMessage())
                .contains("hooks", "'url'", "spec.env[0].valueFrom.secretKeyRef", "'${'").doesNotContain("x.example");
    }

    private void hookSecret(String url, boolean optedIn) {
        client.secrets().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withNewMetadata().withName("hooks").withLabels(optedIn ? Map.of(Labels.SECRET_OPT_IN, "true") : Map.of())
                .endMetadata().withStringData(Map.of("url", url)).build()).serverSideApply();
    }

    @Test
    @Order(10)
    void anImageOutsideTheAllowListIsNotRun() {
        // Tests allow localhost/drover-executor and registry.example.com/drover/ (application.properties).
        Clusters.dbSecret(client, ns, "pw");
        Clusters.create(client, ns, Clusters.yaml("miner", "image: evil.example/miner:1"));
        ExecutorCluster ec = awaitCondition("miner", Conditions.DEGRADED, "True", "ImageNotAllowed");
        assertThat(condition(ec, Conditions.DEGRADED).getMessage()).contains("spec.image evil.example/miner:1",
                "localhost/drover-executor, registry.example.com/drover/");
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("miner").get()).isNull();

        edit("miner", c -> c.getSpec().image = "registry.example.com/drover/custom:2");
        StatefulSet sts = await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("miner").get());
        assertThat(sts.getSpec().getTemplate().getSpec().getContainers().get(0).getImage()).isEqualTo("registry.example.com/drover/custom:2");
        awaitCondition("miner", Conditions.DEGRADED, "False", "AsExpected");
    }

    @Test
    @Order(11)
    void verifiedTlsUsesTheCaBundleAndTheNetworkPolicyTakesExtraPeers() {
        Clusters.dbSecret(client, ns, "pw");
        Clusters.create(client, ns, Clusters.yaml("tls", """
                database:
                  host: 10.1.2.3
                  port: 6432
                  name: jobs
                  sslMode: verify-full
                  caBundle: {configMap: rds-ca, key: global-bundle.pem}
                  credentialsSecret: {name: jobs-db}
                networkPolicy:
                  from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}}]
                  egress: [{to: [{ipBlock: {cidr: 10.9.0.0/16}}], ports: [{port: 443, protocol: TCP}]}]
                """));
        // The ConfigMap must exist: otherwise pods would sit in ContainerCreating without a word.
        ExecutorCluster ec = awaitCondition("tls", Conditions.DEGRADED, "True", "ConfigMapNotFound");
        assertThat(condition(ec, Conditions.DEGRADED).getMessage()).contains("rds-ca", "spec.database.caBundle");
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("tls").get()).isNull();

        client.configMaps().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                .withNewMetadata().withName("rds-ca").endMetadata()
                .addToData("global-bundle.pem", "-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n").build()).create();
        StatefulSet sts = await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("tls").get());
        assertThat(settingsOf(sts)).containsEntry("QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://10.1.2.3:6432/jobs"
                + "?sslmode=verify-full&sslrootcert=/etc/drover/database-ca/ca.crt&ApplicationName=drover-executor");
        var pod = sts.getSpec().getTemplate().getSpec();
        assertThat(pod.getVolumes()).anySatisfy(v -> {
            assertThat(v.getName()).isEqualTo("database-ca");
            assertThat(v.getConfigMap().getName()).isEqualTo("rds-ca");
            assertThat(v.getConfigMap().getItems()).singleElement().satisfies(i -> {
                assertThat(i.getKey()).isEqualTo("global-bundle.pem");
                assertThat(i.getPath()).isEqualTo("ca.crt");
            });
        });
        assertThat(pod.getContainers().get(0).getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getMountPath()).isEqualTo("/etc/drover/database-ca");
            assertThat(m.getReadOnly()).isTrue();
            assertThat(m.getSubPath()).isNull();
        });

        NetworkPolicy netpol = await("NetworkPolicy", () -> client.network().v1().networkPolicies().inNamespace(ns).withName("tls").get());
        assertThat(netpol.getSpec().getIngress().get(0).getFrom()).hasSize(2).last()
                .satisfies(f -> assertThat(f.getNamespaceSelector().getMatchLabels()).containsEntry("kubernetes.io/metadata.name", "monitoring"));
        assertThat(netpol.getSpec().getEgress()).hasSize(3);
        // An IP database host: egress to exactly that address and port.
        assertThat(netpol.getSpec().getEgress().get(1).getTo()).singleElement()
                .satisfies(t -> assertThat(t.getIpBlock().getCidr()).isEqualTo("10.1.2.3/32"));
        assertThat(netpol.getSpec().getEgress().get(1).getPorts().get(0).getPort().getIntVal()).isEqualTo(6432);
        assertThat(netpol.getSpec().getEgress().get(2).getTo().get(0).getIpBlock().getCidr()).isEqualTo("10.9.0.0/16");

        // Switched off: the operator removes it.
        edit("tls", c -> c.getSpec().networkPolicy.enabled = false);
        org.awaitility.Awaitility.await("NetworkPolicy removed").atMost(TIMEOUT)
                .until(() -> client.network().v1().networkPolicies().inNamespace(ns).withName("tls").get() == null);
    }

    /**
     * A roll whose new pod never becomes ready (its database unreachable, a cause that needs no
     * action of its own, so Degraded stays False) stopped there with Progressing True for good.
     * Past the progress deadline it is False, ProgressDeadlineExceeded, naming the pod and the
     * cause, with a Warning event; once the pod is ready the roll shows as moving again. The pod's
     * Ready condition went False an hour ago, as the kubelet would have written it (no kubelet here).
     */
    @Test
    @Order(12)
    void aRollHeldUpByAPodThatNeverBecomesReadyStopsProgressing() {
        Clusters.dbSecret(client, ns, "pw");
        Clusters.create(client, ns, Clusters.yaml("stalled", "replicas: 2"));
        StatefulSet sts = await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("stalled").get());
        writeStatus(sts, 2, 1, 1, "rev-1", "rev-2");
        awaitCondition("stalled", Conditions.PROGRESSING, "True", "RollingUpdate");
        String anHourAgo = java.time.Instant.now().minus(Duration.ofHours(1)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        Pod pod = client.pods().inNamespace(ns).resource(new PodBuilder()
                .withNewMetadata().withName("stalled-1").withLabels(sts.getSpec().getTemplate().getMetadata().getLabels())
                .addNewOwnerReference().withApiVersion("apps/v1").withKind("StatefulSet").withName("stalled")
                .withUid(sts.getMetadata().getUid()).withController(true).endOwnerReference().endMetadata()
                .withSpec(sts.getSpec().getTemplate().getSpec()).build()).create();
        pod.setStatus(new PodStatusBuilder().withPhase("Running").addNewCondition().withType("Ready").withStatus("False")
                .withLastTransitionTime(anHourAgo).endCondition().addNewContainerStatus().withName("executor").withReady(false)
                .withRestartCount(0).withImage("localhost/drover-executor:0.1.0").withImageID("").withNewState().withNewRunning()
                .endRunning().endState().endContainerStatus().build());
        client.pods().inNamespace(ns).resource(pod).updateStatus();

        ExecutorCluster stalled = awaitCondition("stalled", Conditions.PROGRESSING, "False", ClusterStatus.PROGRESS_DEADLINE_EXCEEDED);
        assertThat(condition(stalled, Conditions.PROGRESSING).getMessage()).startsWith("1 of 2 executor nodes run the current"
                + " configuration, and pod stalled-1 has not been ready since " + anHourAgo + ", past the operator's progressDeadline");
        assertThat(condition(stalled, Conditions.DEGRADED).getStatus()).isEqualTo("False");
        assertThat(awaitEvent("stalled", ClusterStatus.PROGRESS_DEADLINE_EXCEEDED).getType()).isEqualTo("Warning");

        // The pod ready at last: the roll moves on.
        Pod fresh = client.pods().inNamespace(ns).withName("stalled-1").get();
        fresh.getStatus().getConditions().getFirst().setStatus("True");
        fresh.getStatus().getContainerStatuses().getFirst().setReady(true);
        client.pods().inNamespace(ns).resource(fresh).updateStatus();
        awaitCondition("stalled", Conditions.PROGRESSING, "True", "RollingUpdate");
        assertThat(events("stalled", ClusterStatus.PROGRESS_DEADLINE_EXCEEDED)).as("one event for the stall").hasSize(1);
    }

    /**
     * A node that cannot start: the kubelet copies its termination message into the pod's
     * status, and the cluster's conditions carry it (no kubelet here: the test writes the pod
     * status as the kubelet would).
     */
    @Test
    @Order(12)
    void theExecutorsOwnLastWordsReachTheConditions() {
        Clusters.dbSecret(client, ns, "wrong");
        Clusters.create(client, ns, Clusters.yaml("crash", "replicas: 1"));
        StatefulSet sts = await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("crash").get());
        assertThat(sts.getSpec().getTemplate().getSpec().getContainers().get(0).getTerminationMessagePolicy())
                .isEqualTo("FallbackToLogsOnError");
        writeStatus(sts, 1, 0, 1, "r1", "r1");
        Pod pod = client.pods().inNamespace(ns).resource(new PodBuilder()
                .withNewMetadata().withName("crash-0").withLabels(sts.getSpec().getTemplate().getMetadata().getLabels())
                .addNewOwnerReference().withApiVersion("apps/v1").withKind("StatefulSet").withName("crash")
                .withUid(sts.getMetadata().getUid()).withController(true).endOwnerReference().endMetadata()
                .withSpec(sts.getSpec().getTemplate().getSpec()).build()).create();
        pod.setStatus(new PodStatusBuilder().withPhase("Running").addNewContainerStatus().withName("executor").withReady(false)
                .withRestartCount(2).withImage("localhost/drover-executor:0.1.0").withImageID("").withNewState().withNewWaiting()
                .withReason("CrashLoopBackOff").endWaiting().endState()
                .withNewLastState().withNewTerminated().withExitCode(1).withMessage("DatabaseAuthenticationFailed: Migrating the schema"
                        + " drover failed: FATAL: password authentication failed for user \"drover\" (SQLState 28P01)").endTerminated()
                .endLastState().endContainerStatus().build());
        client.pods().inNamespace(ns).resource(pod).updateStatus();

        // A pod that only copies the labels (not the StatefulSet's) cannot plant a cause.
        Pod impostor = client.pods().inNamespace(ns).resource(new PodBuilder()
                .withNewMetadata().withName("a-impostor").withLabels(sts.getSpec().getTemplate().getMetadata().getLabels()).endMetadata()
                .withSpec(sts.getSpec().getTemplate().getSpec()).build()).create();
        impostor.setStatus(new PodStatusBuilder().withPhase("Pending").addNewCondition().withType("PodScheduled").withStatus("False")
                .withReason("Unschedulable").withMessage("planted").endCondition().build());
        client.pods().inNamespace(ns).resource(impostor).updateStatus();

        ExecutorCluster ec = awaitCondition("crash", Conditions.DEGRADED, "True", "DatabaseAuthenticationFailed");
        assertThat(condition(ec, Conditions.DEGRADED).getMessage()).isEqualTo("pod crash-0: Migrating the schema drover failed:"
                + " FATAL: password authentication failed for user \"drover\" (SQLState 28P01) (exit code 1, 2 restarts)");
        assertThat(condition(ec, Conditions.READY).getReason()).isEqualTo("DatabaseAuthenticationFailed");
        assertThat(condition(ec, Conditions.READY).getMessage()).startsWith("0 of 1 executor nodes ready; pod crash-0: ");
        var warning = awaitEvent("crash", "DatabaseAuthenticationFailed");
        assertThat(warning.getType()).isEqualTo("Warning");
        assertThat(warning.getNote()).contains("password authentication failed");

        // Fixed (the pod runs and is ready): the conditions follow.
        Pod fresh = client.pods().inNamespace(ns).withName("crash-0").get();
        fresh.setStatus(new PodStatusBuilder().withPhase("Running").addNewContainerStatus().withName("executor").withReady(true)
                .withRestartCount(3).withImage("localhost/drover-executor:0.1.0").withImageID("").withNewState().withNewRunning()
                .endRunning().endState().endContainerStatus().build());
        client.pods().inNamespace(ns).resource(fresh).updateStatus();
        writeStatus(sts, 1, 1, 1, "r1", "r1");
        awaitCondition("crash", Conditions.DEGRADED, "False", "AsExpected");
        awaitCondition("crash", Conditions.READY, "True", "NodesReady");
        assertThat(awaitEvent("crash", "Recovered").getNote()).isEqualTo("No longer degraded (was DatabaseAuthenticationFailed)");

        // Repeats within the series window add to the first event instead of flooding.
        ClusterEvents recorder = new ClusterEvents();
        ExecutorCluster crash = client.resources(ExecutorCluster.class).inNamespace(ns).withName("crash").get();
        for (int i = 0; i < 3; i++) {
            recorder.warning(client, crash, "TestRepeat", "Diagnose", "the same thing again");
        }
        assertThat(events("crash", "TestRepeat")).singleElement()
                .satisfies(e -> assertThat(e.getSeries().getCount()).isEqualTo(3));
        // The first one gone (the API server's event TTL, or deleted): the next repeat is recorded anew.
        client.events().v1().events().inNamespace(ns).resource(events("crash", "TestRepeat").get(0)).delete();
        org.awaitility.Awaitility.await("the event deleted").atMost(TIMEOUT).until(() -> events("crash", "TestRepeat").isEmpty());
        recorder.warning(client, crash, "TestRepeat", "Diagnose", "the same thing again");
        assertThat(events("crash", "TestRepeat")).singleElement().satisfies(e -> assertThat(e.getSeries()).isNull());
    }

    /**
     * A failure whose cause goes away without an event the operator watches (here an admission
     * policy that refuses the cluster's Services, then deleted): the operator keeps retrying past the SDK's
     * default 5 attempts (about 26 s), so the cluster recovers within a minute of the fix, and its
     * gauges say Degraded meanwhile (DroverClusterDegraded).
     */
    @Test
    @Order(14)
    void aFailureThatClearsUnseenIsRetriedUntilItDoes() {
        Clusters.dbSecret(client, ns, "pw");
        String policy = "no-services-" + ns;
        refuseServices(policy);
        Clusters.create(client, ns, Clusters.yaml("quota", ""));
        ExecutorCluster failed = awaitCondition("quota", Conditions.DEGRADED, "True", "ReconcileFailed");
        long firstFailure = System.nanoTime();
        assertThat(condition(failed, Conditions.DEGRADED).getMessage()).startsWith("the API server refused a request (")
                .contains("no Services in this namespace");
        assertThat(operatorMetrics()).contains("drover_cluster_degraded{drover_cluster=\"quota\",namespace=\"" + ns
                + "\",reason=\"ReconcileFailed\"} 1.0");
        org.awaitility.Awaitility.await("a Warning event ReconcileFailed").atMost(TIMEOUT)
                .until(() -> events("quota", "ReconcileFailed"), e -> !e.isEmpty());
        assertThat(events("quota", "ReconcileFailed")).first().satisfies(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getNote()).contains("no Services in this namespace");
        });

        // Past the default retries' last attempt, then the cause goes, with no event for the cluster.
        Duration sinceFailure = Duration.ofNanos(System.nanoTime() - firstFailure);
        if (sinceFailure.compareTo(Duration.ofSeconds(32)) < 0) {
            sleep(Duration.ofSeconds(32).minus(sinceFailure));
        }
        unrefuse(policy);
        org.awaitility.Awaitility.await("Degraded=False (AsExpected) after the policy went").atMost(Duration.ofSeconds(75))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> client.resources(ExecutorCluster.class).inNamespace(ns).withName("quota").get(), ec -> {
                    Condition c = condition(ec, Conditions.DEGRADED);
                    return c != null && "False".equals(c.getStatus());
                });
        assertThat(client.apps().statefulSets().inNamespace(ns).withName("quota").get()).isNotNull();
        assertThat(operatorMetrics()).contains("drover_cluster_degraded{drover_cluster=\"quota\",namespace=\"" + ns
                + "\",reason=\"AsExpected\"} 0.0");
    }

    /**
     * KEDA's objects refused as written (here by an admission policy; KEDA's own webhook refuses
     * a ScaledObject for a StatefulSet another HPA scales): the rest of the spec is applied all
     * the same (a failed pass wrote nothing after the ScaledObject, so an image or a setting
     * waited behind it), and the cluster says why autoscaling does not work, Degraded.
     */
    @Test
    @Order(15)
    void aRefusedScaledObjectDoesNotHoldBackTheRestOfTheSpec() {
        TestCluster.get().installKedaCrds();
        Clusters.dbSecret(client, ns, "pw");
        String policy = "no-scaledobjects-" + ns;
        refuse(policy, "keda.sh", "scaledobjects", "no ScaledObjects in this namespace");
        try {
            Clusters.create(client, ns, Clusters.yaml("refusedso", "autoscaling: {enabled: true, minReplicas: 1, maxReplicas: 3}"));
            ExecutorCluster ec = awaitCondition("refusedso", Conditions.DEGRADED, "True", Autoscaler.SCALED_OBJECT_REFUSED);
            assertThat(condition(ec, Conditions.DEGRADED).getMessage()).contains("no ScaledObjects in this namespace")
                    .contains("the fleet keeps its current size");
            assertThat(condition(ec, Conditions.AUTOSCALING).getReason()).isEqualTo(Autoscaler.SCALED_OBJECT_REFUSED);
            StatefulSet sts = await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("refusedso").get());
            assertThat(sts.getSpec().getReplicas()).as("minReplicas, for a new StatefulSet").isEqualTo(1);
            String hash = awaitHash("refusedso", null);
            edit("refusedso", e -> e.getSpec().threads = 3);
            awaitHash("refusedso", hash);
            assertThat(settingsOf("refusedso")).as("a setting changed meanwhile reaches the executors")
                    .containsEntry("DROVER_THREADS", "3");
        } finally {
            unrefuse(policy);
        }
        awaitCondition("refusedso", Conditions.DEGRADED, "False", "AsExpected");
        client.resources(ExecutorCluster.class).inNamespace(ns).withName("refusedso").delete();
    }

    /**
     * KEDA's objects that cannot be written at all (KEDA's admission webhook not answering: the
     * API server answers 500 "failed calling webhook"): the whole pass failed before the
     * StatefulSet, and a setting or an image fix waited for KEDA. Now the rest of the spec is
     * applied, and the cluster says why autoscaling does not work, Degraded.
     */
    @Test
    @Order(17)
    void aScaledObjectThatCannotBeWrittenDoesNotHoldBackTheRestOfTheSpec() {
        TestCluster.get().installKedaCrds();
        Clusters.dbSecret(client, ns, "pw");
        String webhook = "keda-down-" + ns;
        client.admissionRegistration().v1().validatingWebhookConfigurations().resource(
                new io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder()
                        .withNewMetadata().withName(webhook).endMetadata()
                        .addNewWebhook().withName("vscaledobject.keda.sh").withAdmissionReviewVersions("v1")
                        .withSideEffects("None").withFailurePolicy("Fail").withTimeoutSeconds(1)
                        .withNewClientConfig().withUrl("https://127.0.0.1:1/validate").endClientConfig()
                        .addNewRule().withApiGroups("keda.sh").withApiVersions("*").withOperations("CREATE", "UPDATE")
                        .withResources("scaledobjects", "triggerauthentications").endRule()
                        .withNewNamespaceSelector().addToMatchLabels("kubernetes.io/metadata.name", ns).endNamespaceSelector()
                        .endWebhook().build()).create();
        try {
            // Loaded by the API server before the cluster exists (else its first pass may write the objects).
            GenericKubernetesResource probe = new io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder()
                    .withApiVersion("keda.sh/v1alpha1").withKind("ScaledObject").withNewMetadata().withName("webhook-probe")
                    .withNamespace(ns).endMetadata().addToAdditionalProperties("spec",
                            Map.of("scaleTargetRef", Map.of("name", "nothing"),
                            "triggers", List.of(Map.of("type", "cpu", "metadata", Map.of("value", "50"))))).build();
            org.awaitility.Awaitility.await("KEDA's webhook, not answering").atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500)).until(() -> {
                        try {
                            client.resource(probe).dryRun().create();
                            return false;
                        } catch (KubernetesClientException e) {
                            return String.valueOf(e.getMessage()).contains("failed calling webhook");
                        }
                    });
            Clusters.create(client, ns, Clusters.yaml("kedadown", "autoscaling: {enabled: true, minReplicas: 1, maxReplicas: 3}"));
            ExecutorCluster ec = org.awaitility.Awaitility.await("Degraded, ScaledObjectNotWritten").atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> client.resources(ExecutorCluster.class).inNamespace(ns).withName("kedadown").get(), c -> {
                        Condition d = c == null || c.getStatus() == null ? null : condition(c, Conditions.DEGRADED);
                        return d != null && Autoscaler.SCALED_OBJECT_NOT_WRITTEN.equals(d.getReason());
                    });
            assertThat(condition(ec, Conditions.DEGRADED).getMessage()).contains("failed calling webhook")
                    .contains("the rest of the spec is applied");
            StatefulSet sts = await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("kedadown").get());
            assertThat(sts.getSpec().getReplicas()).as("minReplicas, for a new StatefulSet").isEqualTo(1);
            String hash = awaitHash("kedadown", null);
            edit("kedadown", e -> e.getSpec().threads = 3);
            // Each pass first waits out the client's retries of the failed write (about 20 s).
            awaitHash("kedadown", hash, Duration.ofSeconds(120));
            assertThat(settingsOf("kedadown")).as("a setting changed meanwhile reaches the executors")
                    .containsEntry("DROVER_THREADS", "3");
            assertThat(keda("ScaledObject", "kedadown")).isNull();
        } finally {
            client.admissionRegistration().v1().validatingWebhookConfigurations().withName(webhook).delete();
        }
        org.awaitility.Awaitility.await("the ScaledObject, once KEDA's webhook is gone").atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200)).until(() -> keda("ScaledObject", "kedadown") != null);
        client.resources(ExecutorCluster.class).inNamespace(ns).withName("kedadown").delete();
    }

    /**
     * A Flowable cluster: the Flowable executor image by default, the same settings under the
     * same names in its ConfigMap, KEDA counting Flowable's job tables, and a Bottleneck that
     * says this engine reports no figures.
     */
    @Test
    @Order(13)
    void aFlowableClusterRunsTheFlowableExecutor() {
        TestCluster.get().installKedaCrds();
        Clusters.dbSecret(client, ns, "pw");
        Clusters.create(client, ns, Clusters.yaml("bpm", """
                engine: Flowable
                lockMode: Global
                schema: flowable
                threads: 16
                queueSize: 256
                autoscaling: {enabled: true, minReplicas: 1, maxReplicas: 3, targetBacklogPerNode: 500}
                """));
        StatefulSet sts = await("StatefulSet", () -> client.apps().statefulSets().inNamespace(ns).withName("bpm").get());
        assertThat(sts.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage())
                .isEqualTo("localhost/flowable-executor:0.1.0");
        assertThat(settingsOf(sts)).containsEntry("DROVER_LOCKMODE", "Global").containsEntry("DROVER_THREADS", "16")
                .containsEntry("DROVER_QUEUESIZE", "256").containsEntry("DROVER_SCHEMA", "flowable");
        GenericKubernetesResource so = await("ScaledObject", () -> keda("ScaledObject", "bpm"));
        Map<String, Object> trigger = map(((java.util.List<?>) map(so.getAdditionalProperties().get("spec")).get("triggers")).get(0));
        var applied = client.resources(ExecutorCluster.class).inNamespace(ns).withName("bpm").get().getSpec();
        assertThat((String) map(trigger.get("metadata")).get("query"))
                .isEqualTo(FlowableBacklogQuery.sql("flowable", applied.autoscaling, applied.threads));
        assertThat(sts.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv())
                .as("no API token: the Flowable executor serves no job API").noneMatch(e -> e.getName().startsWith("DROVER_API"));
        assertThat(client.secrets().inNamespace(ns).withName("bpm-api").get()).isNull();
        ExecutorCluster ec = awaitCondition("bpm", Conditions.BOTTLENECK, "Unknown", "NotReported");
        assertThat(condition(ec, Conditions.BOTTLENECK).getMessage()).contains("Flowable engine reports no figures");
        client.resources(ExecutorCluster.class).inNamespace(ns).withName("bpm").delete();
    }

    private io.fabric8.kubernetes.api.model.events.v1.Event awaitEvent(String cluster, String reason) {
        return org.awaitility.Awaitility.await(reason + " event on " + cluster).atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                .until(() -> events(cluster, reason), l -> !l.isEmpty()).get(0);
    }

    private List<io.fabric8.kubernetes.api.model.events.v1.Event> events(String cluster, String reason) {
        return client.events().v1().events().inNamespace(ns).list().getItems().stream()
                .filter(e -> e.getRegarding() != null && cluster.equals(e.getRegarding().getName()) && reason.equals(e.getReason()))
                .toList();
    }

    private String awaitHash(String name, String previous) {
        return awaitHash(name, previous, TIMEOUT);
    }

    private String awaitHash(String name, String previous, Duration timeout) {
        return org.awaitility.Awaitility.await("pod template hash change").atMost(timeout).pollInterval(Duration.ofMillis(200))
                .until(() -> Optional.ofNullable(client.apps().statefulSets().inNamespace(ns).withName(name).get())
                        .map(s -> s.getSpec().getTemplate().getMetadata().getAnnotations().get(ExecutorStatefulSet.CONFIG_HASH))
                        .orElse(null), h -> h != null && !h.equals(previous));
    }

    private ExecutorCluster awaitCondition(String name, String type, String status, String reason) {
        return org.awaitility.Awaitility.await(type + "=" + status + " (" + reason + ")").atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> client.resources(ExecutorCluster.class).inNamespace(ns).withName(name).get(), ec -> {
                    Condition c = ec == null || ec.getStatus() == null ? null : condition(ec, type);
                    return c != null && c.getStatus().equals(status) && c.getReason().equals(reason);
                });
    }

    private static Condition condition(ExecutorCluster ec, String type) {
        return ec.getStatus().conditions.stream().filter(c -> c.getType().equals(type)).findFirst().orElse(null);
    }

    /** The plain-valued environment of a cluster's executor container: its settings, as its pods get them. */
    private Map<String, String> settingsOf(String cluster) {
        return settingsOf(client.apps().statefulSets().inNamespace(ns).withName(cluster).get());
    }

    private static Map<String, String> settingsOf(StatefulSet sts) {
        Map<String, String> env = new java.util.TreeMap<>();
        sts.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv().stream()
                .filter(e -> e.getValue() != null).forEach(e -> env.put(e.getName(), e.getValue()));
        return env;
    }

    private void writeStatus(StatefulSet sts, int replicas, int ready, int updated, String current, String update) {
        StatefulSet fresh = client.apps().statefulSets().inNamespace(ns).withName(sts.getMetadata().getName()).get();
        fresh.setStatus(new StatefulSetStatusBuilder().withReplicas(replicas).withReadyReplicas(ready).withUpdatedReplicas(updated)
                .withAvailableReplicas(ready).withCurrentRevision(current).withUpdateRevision(update)
                .withObservedGeneration(fresh.getMetadata().getGeneration()).build());
        client.apps().statefulSets().inNamespace(ns).resource(fresh).updateStatus();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
