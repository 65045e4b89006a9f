package io.drover.e2e;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.flowable.engine.ProcessEngine;
import org.flowable.engine.impl.cfg.StandaloneProcessEngineConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static io.drover.e2e.Kube.log;
import static io.drover.e2e.Kube.nz;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Flowable engine (spec.engine: Flowable) on the real cluster, from the user's side: an
 * image derived from flowable-executor with a process model and its delegate's jar in
 * /app/processes (examples/flowable-callback), whose every job reports its start and finish to
 * this suite. Process instances are started by a Flowable engine on this machine (its async
 * executor off) on the cluster's database, as an application beside the fleet would.
 *
 * <p>The fleet drains them; a settings change rolls it; a node SIGKILLed mid-drain loses no job
 * (its restart frees what it held at once: same pod name, same lock owner), and every job run
 * twice had started on it before the kill; KEDA scales the fleet on Flowable's backlog and back.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FlowableE2E {
    static final String NS = "drover-flowable";
    static final String EC = "bpm";

    static E2EEnvironment env;
    static KubernetesClient client;
    static Kube kube;
    static ExecutionReceiver receiver;
    static ProcessEngine starter;
    static final String SCHEMA = "flowable_" + UUID.randomUUID().toString().substring(0, 6);

    @BeforeAll
    static void setUp() throws Exception {
        env = E2EEnvironment.fromEnv();
        client = new KubernetesClientBuilder().build();
        kube = new Kube(env, client);
        kube.freshNamespaceWithOperator(NS);
        receiver = new ExecutionReceiver(env.receiverHost());
    }

    @AfterAll
    static void tearDown() {
        if (starter != null) {
            starter.close();
        }
        if (receiver != null) {
            receiver.close();
        }
        if (client != null) {
            client.namespaces().withName(NS).delete();
        }
    }

    @Test
    @Order(1)
    void aFlowableFleetRunsTheUsersProcessesToTheEnd() {
        kube.apply(cluster(EC, 2, 4).yaml());
        kube.awaitReady(NS, EC, 2);
        List<Long> ids = start(1000, 0);
        awaitFinished(ids, Duration.ofMinutes(3));
        Runs runs = Runs.of(ids, Set.of(), List.of(), receiver.events(), List.of());
        log("Flowable, 2 nodes: " + runs);
        assertThat(runs.lost()).isEmpty();
        assertThat(runs.ranTwice()).as("no node died: every job ran once").isEmpty();
        assertThat(starter.getManagementService().createDeadLetterJobQuery().count()).isZero();
    }

    @Test
    @Order(2)
    void aSettingsChangeRollsTheFleet() {
        String revision = kube.statefulSet(NS, EC).getStatus().getUpdateRevision();
        kube.apply(cluster(EC, 2, 6).yaml());
        await("the StatefulSet rolls to a new revision").atMost(Kube.READY_TIMEOUT).pollInterval(Duration.ofSeconds(1)).until(() -> {
            var st = kube.statefulSet(NS, EC).getStatus();
            return st.getUpdateRevision() != null && !st.getUpdateRevision().equals(revision)
                    && st.getUpdateRevision().equals(st.getCurrentRevision()) && nz(st.getUpdatedReplicas()) == 2
                    && nz(st.getReadyReplicas()) == 2;
        });
        assertThat(kube.setting(NS, EC, "DROVER_THREADS")).isEqualTo("6");
        receiver.reset();
        List<Long> ids = start(200, 0);
        awaitFinished(ids, Duration.ofMinutes(2));
        assertThat(Runs.of(ids, Set.of(), List.of(), receiver.events(), List.of()).lost()).isEmpty();
    }

    @Test
    @Order(3)
    void aNodeKilledMidDrainLosesNoJob() {
        receiver.reset();
        List<Long> ids = start(1500, 100);
        await().atMost(Duration.ofMinutes(2)).until(() -> finishes() > 300);
        Pod victim = client.pods().inNamespace(NS).withName(EC + "-1").get();
        int restartsBefore = nz(victim.getStatus().getContainerStatuses().get(0).getRestartCount());
        Runs.Kill killed = kube.sigkill(victim);
        log("killed " + EC + "-1 after " + finishes() + " finished");
        awaitFinished(ids, Duration.ofMinutes(4));
        kube.awaitReady(NS, EC, 2);
        Runs runs = Runs.of(ids, Set.of(), List.of(), receiver.events(), List.of(killed));
        log("Flowable, kill -9 of a node: " + runs);
        assertThat(runs.lost()).isEmpty();
        assertThat(runs.ranTwiceUnexplained()).as("jobs run twice that the kill does not explain").isEmpty();
        if (env.containerdSocket().isPresent()) {
            assertThat(client.pods().inNamespace(NS).withName(EC + "-1").get().getStatus().getContainerStatuses().get(0)
                    .getRestartCount()).isGreaterThan(restartsBefore);
        }
        kube.kubectl("delete", "executorcluster", EC, "-n", NS, "--wait=true").orFail();
    }

    @Test
    @Order(4)
    void kedaScalesTheFleetOnFlowablesBacklog() {
        String auto = "bpm-auto";
        kube.apply(cluster(auto, 1, 2).set("queueSize", 8).set("acquirePageSize", 8)
                .setYaml("autoscaling", "{enabled: true, minReplicas: 1, maxReplicas: 3, targetBacklogPerNode: 50,"
                        + " pollingInterval: 5s, cooldownPeriod: 30s, scaleDownStabilizationWindow: 20s}").yaml());
        kube.awaitReady(NS, auto, 1);
        receiver.reset();
        List<Long> ids = start(600, 200);
        Instant started = Instant.now();
        await("KEDA scales to 3 nodes on Flowable's backlog").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1))
                .until(() -> kube.replicas(NS, auto) == 3);
        log("Flowable backlog 600: 3 replicas after " + Duration.between(started, Instant.now()).toSeconds() + " s");
        awaitFinished(ids, Duration.ofMinutes(5));
        await("KEDA scales back to 1 node").atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofSeconds(1))
                .until(() -> kube.replicas(NS, auto) == 1);
        Runs runs = Runs.of(ids, Set.of(), List.of(), receiver.events(), List.of());
        log("Flowable under KEDA: " + runs);
        assertThat(runs.lost()).isEmpty();
    }

    /** The suite's Flowable fleet: Global lock (Flowable's global acquire lock), the user's image. */
    static ClusterFixture cluster(String name, int replicas, int threads) {
        return ClusterFixture.load("flowable-cluster.yaml").named(name, NS).set("image", env.flowableImage())
                .set("replicas", replicas).set("threads", threads).set("schema", SCHEMA)
                .set("database.host", env.dbHost()).set("database.port", env.dbPort());
    }

    /** Starts {@code count} instances of the user's callback process, each job sleeping {@code ms}; returns their ids. */
    static List<Long> start(int count, int ms) {
        if (starter == null) {
            starter = starterEngine(); // once a fleet has created the schema
        }
        List<Long> ids = new ArrayList<>(count);
        var runtime = starter.getRuntimeService();
        for (int i = 0; i < count; i++) {
            ids.add(Long.parseLong(runtime.startProcessInstanceByKey("callback",
                    Map.of("callbackUrl", receiver.base(), "ms", ms)).getId()));
        }
        return ids;
    }

    /** A Flowable engine on this machine, its async executor off, on the cluster's schema. */
    static ProcessEngine starterEngine() {
        String url = env.jdbcUrl() + (env.jdbcUrl().contains("?") ? "&" : "?") + "currentSchema=" + SCHEMA;
        var cfg = new StandaloneProcessEngineConfiguration();
        cfg.setJdbcUrl(url);
        cfg.setJdbcUsername(env.dbUser());
        cfg.setJdbcPassword(env.dbPassword());
        cfg.setJdbcDriver("org.postgresql.Driver");
        cfg.setDatabaseSchema(SCHEMA);
        cfg.setDatabaseSchemaUpdate("false"); // the fleet created it
        cfg.setAsyncExecutorActivate(false);
        cfg.setCreateDiagramOnDeploy(false);
        return cfg.buildProcessEngine();
    }

    static void awaitFinished(List<Long> ids, Duration timeout) {
        await("every job finished").atMost(timeout).pollInterval(Duration.ofSeconds(1))
                .until(() -> Runs.of(ids, Set.of(), List.of(), receiver.events(), List.of()).finished() == ids.size());
    }

    static long finishes() {
        return receiver.events().stream().filter(e -> e.kind().equals("finish")).count();
    }
}
