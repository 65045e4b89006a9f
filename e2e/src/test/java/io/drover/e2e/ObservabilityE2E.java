package io.drover.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The observability kit on the real cluster: a real Prometheus (built by make prometheus-binaries, run beside the local
 * cluster) discovers the executors and the operator through the Kubernetes API with the chart's
 * PodMonitor relabelling, evaluates the chart's own alert rules, and serves the dashboard's
 * queries. A cluster falling behind fires DroverDueLagAboveSLO, which resolves once the backlog
 * drains; every dashboard panel returns data for the cluster. A fleet at 0 nodes that KEDA does
 * not wake fires DroverDueJobsWithoutExecutors from KEDA's own metric.
 *
 * <p>Prometheus runs on this machine, so it needs the pods' addresses reachable from here: the
 * local cluster (with $KUBECONFIG set to another cluster, the test is skipped and says so).
 */
class ObservabilityE2E {
    static final String NS = "drover-obs";
    static final String EC = "obs";
    /** An autoscaled cluster KEDA keeps at 0 nodes. */
    static final String IDLE = "idle";
    /** The SLO for the test: 15 s, and the rules' waiting periods ("for") shortened to 15 s. */
    static final int SLO_SECONDS = 15;

    static E2EEnvironment env;
    static KubernetesClient client;
    static Kube kube;
    static Path dir;
    static Process prometheus;
    static URI api;
    static final HttpClient http = HttpClient.newHttpClient();
    static final ObjectMapper json = new ObjectMapper();

    @BeforeAll
    static void setUp() throws Exception {
        env = E2EEnvironment.fromEnv();
        Assumptions.assumeTrue(env.containerdSocket().isPresent(),
                "Prometheus runs on this machine and must reach the pods: the local cluster only");
        client = new KubernetesClientBuilder().build();
        kube = new Kube(env, client);
        kube.freshNamespaceWithOperator(NS);
        dir = Files.createTempDirectory("drover-prometheus");
        Files.writeString(dir.resolve("rules.yaml"), chartRules());
        Files.writeString(dir.resolve("prometheus.yml"), config());
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        api = URI.create("http://127.0.0.1:" + port + "/api/v1/");
        prometheus = new ProcessBuilder(env.bin("prometheus"), "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        await("Prometheus ready").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/-/ready")).build(),
                        HttpResponse.BodyHandlers.ofString()).statusCode() == 200);
        log("prometheus on 127.0.0.1:" + port + ", config and log in " + dir);
    }

    @AfterAll
    static void tearDown() {
        if (prometheus != null) {
            prometheus.destroy();
        }
        if (client != null) {
            client.namespaces().withName(NS).delete();
        }
    }

    @Test
    void theBacklogAlertFiresAndResolvesAndEveryPanelHasData() throws Exception {
        String schema = "obs_" + UUID.randomUUID().toString().substring(0, 6);
        kube.apply(ClusterFixture.load("observed-cluster.yaml").named(EC, NS).set("schema", schema)
                .set("database.host", env.dbHost()).set("database.port", env.dbPort()).yaml());
        kube.awaitReady(NS, EC, 1);
        await("the executor scraped").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(2))
                .until(() -> !query("up{namespace=\"" + NS + "\", drover_cluster=\"" + EC + "\"} == 1").isEmpty());

        // Three malformed jobs first (dead-lettered with a reason at their first run), so the retries
        // and dead-letters panel's per-outcome series exist; then one thread, 200 ms jobs: 5 jobs/s,
        // so 400 jobs keep the oldest waiting for over a minute.
        JobTable jobs = new JobTable(env, schema);
        jobs.enqueue("sleep", "soon", 3, 3);
        jobs.enqueue("sleep", "200", 400, 3);
        await("DroverDueLagAboveSLO firing").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(3))
                .until(() -> alert("DroverDueLagAboveSLO", "firing"));
        log("DroverDueLagAboveSLO fired: " + alerts());

        // Every query of every panel of the dashboard answers for this cluster.
        JsonNode dashboard = json.readTree(env.repo().resolve("charts/drover-operator/dashboards/drover-fleet.json").toFile());
        List<String> empty = new ArrayList<>();
        int panels = 0;
        for (JsonNode panel : dashboard.get("panels")) {
            if (!panel.has("targets")) {
                continue;
            }
            panels++;
            for (JsonNode target : panel.get("targets")) {
                String expr = target.get("expr").asText().replace("$__rate_interval", "1m")
                        .replace("$namespace", NS).replace("$cluster", EC);
                if (query(expr).isEmpty()) {
                    empty.add(panel.get("title").asText() + ": " + expr);
                }
            }
        }
        log("dashboard: every query of " + panels + " panels run" + (empty.isEmpty() ? ", all with data" : "; empty: " + empty));
        assertThat(empty).as("dashboard queries without data").isEmpty();

        await("DroverDueLagAboveSLO resolved once the backlog drained").atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofSeconds(3))
                .until(() -> !alert("DroverDueLagAboveSLO", null));
        log("DroverDueLagAboveSLO resolved; alerts now: " + alerts());
    }

    /**
     * A fleet at 0 replicas that KEDA does not wake (an activation threshold above the backlog)
     * while jobs are due: no executor reports anything, so DroverDueJobsWithoutExecutors reads
     * KEDA's own view of the backlog. Lowering the threshold lets KEDA start a node, which
     * drains the jobs, and the alert resolves.
     */
    @Test
    void dueJobsWithNoExecutorRunningFireAndResolve() throws Exception {
        String schema = "obs0_" + UUID.randomUUID().toString().substring(0, 6);
        ClusterFixture idle = ClusterFixture.load("observed-cluster.yaml").named(IDLE, NS).set("schema", schema)
                .set("database.host", env.dbHost()).set("database.port", env.dbPort())
                .setYaml("autoscaling", "{enabled: true, minReplicas: 1, maxReplicas: 1, targetBacklogPerNode: 10,"
                        + " activationBacklog: 1000, pollingInterval: 5s, cooldownPeriod: 30s}");
        // One node first: executors create the schema, and the jobs need it.
        kube.apply(idle.yaml());
        kube.awaitReady(NS, IDLE, 1);
        kube.apply(idle.set("autoscaling.minReplicas", 0).yaml());
        await("KEDA scales the idle fleet to 0").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(2))
                .until(() -> kube.replicas(NS, IDLE) == 0 && kube.pods(NS, IDLE).isEmpty());
        JobTable jobs = new JobTable(env, schema);
        jobs.enqueue("noop", "", 40, 3);
        await("DroverDueJobsWithoutExecutors firing for " + IDLE).atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(3))
                .until(() -> alert("DroverDueJobsWithoutExecutors", IDLE, "firing"));
        assertThat(kube.replicas(NS, IDLE)).as("KEDA kept the fleet at 0").isZero();
        log("DroverDueJobsWithoutExecutors fired: " + alerts());

        kube.apply(idle.set("autoscaling.activationBacklog", 0).yaml());
        await("DroverDueJobsWithoutExecutors resolved once KEDA woke a node").atMost(Duration.ofMinutes(4))
                .pollInterval(Duration.ofSeconds(3)).until(() -> !alert("DroverDueJobsWithoutExecutors", IDLE, null));
        log("DroverDueJobsWithoutExecutors resolved with " + kube.replicas(NS, IDLE) + " node(s)");
        await("the woken node drains the jobs").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(2))
                .until(() -> jobs.count("true") == 0);
    }

    /** The chart's PrometheusRule, rendered with the test's SLO, its "for" periods shortened for a test. */
    @SuppressWarnings("unchecked")
    static String chartRules() {
        var rendered = Commands.run(List.of(env.bin("helm"), "template", "d", env.repo().resolve("charts/drover-operator").toString(),
                "--kube-version", "1.34.2", "--set", "metrics.prometheusRule.enabled=true",
                "--set", "metrics.prometheusRule.dueLagSLOSeconds=" + SLO_SECONDS, "--show-only", "templates/prometheusrule.yaml"));
        rendered.orFail();
        String yaml = rendered.output().substring(rendered.output().indexOf("---")); // after the echoed command line
        GenericKubernetesResource rule = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
        return Serialization.asYaml(rule.getAdditionalProperties().get("spec")).replaceAll("for: \"?[0-9]+m\"?", "for: 15s");
    }

    /** e2e/prometheus/prometheus.yml (the chart's PodMonitors for a plain Prometheus), for this test's namespace. */
    static String config() throws IOException {
        return Files.readString(env.repo().resolve("e2e/prometheus/prometheus.yml"))
                .replace("@RULES@", dir.resolve("rules.yaml").toString())
                .replace("@KUBECONFIG@", System.getenv("KUBECONFIG"))
                .replace("@EXECUTOR_NAMESPACE@", NS)
                .replace("@OPERATOR_NAMESPACE@", Kube.OPERATOR_NS);
    }

    static JsonNode query(String promql) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(api.resolve("query?query="
                + URLEncoder.encode(promql, StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
        JsonNode body = json.readTree(r.body());
        assertThat(body.get("status").asText()).as(promql + ": " + r.body()).isEqualTo("success");
        return body.get("data").get("result");
    }

    /** Whether the alert is active for this cluster (in {@code state}, or in any state when null). */
    static boolean alert(String name, String state) throws IOException, InterruptedException {
        return alert(name, EC, state);
    }

    static boolean alert(String name, String cluster, String state) throws IOException, InterruptedException {
        for (JsonNode a : json.readTree(alerts()).get("data").get("alerts")) {
            JsonNode labels = a.get("labels");
            if (labels.get("alertname").asText().equals(name) && labels.path("drover_cluster").asText().equals(cluster)
                    && (state == null || a.get("state").asText().equals(state))) {
                return true;
            }
        }
        return false;
    }

    static String alerts() throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(api.resolve("alerts")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    static void log(String message) {
        System.out.println("[e2e] " + message);
    }
}
