package io.drover.operator.testing;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One real kube-apiserver + etcd per test JVM (io.fabric8:kube-api-test, binaries built from Go
 * modules by tools/build-binaries.sh), plus kube-controller-manager running only the garbage
 * collector, so that deleting an ExecutorCluster really deletes what it owns. No other
 * controllers run: StatefulSets get no pods, and tests write StatefulSet status themselves.
 */
public final class TestCluster {
    private static TestCluster instance;

    private final KubeAPIServer apiServer;
    private final Path kubeconfig;
    private Process garbageCollector;
    private final KubernetesClient client;

    private TestCluster() throws IOException {
        apiServer = new KubeAPIServer(KubeAPIServerConfigBuilder.anAPIServerConfig()
                .withOfflineMode(true)
                .withUpdateKubeConfig(false)
                .build());
        apiServer.start();
        kubeconfig = Files.createTempFile("drover-kubeconfig", ".yaml");
        Files.writeString(kubeconfig, apiServer.getKubeConfigYaml());
        client = new KubernetesClientBuilder().withConfig(config()).build();
        Runtime.getRuntime().addShutdownHook(new Thread(this::stop));
        installCrd(client, repoRoot().resolve("crds/executorclusters.drover.io-v1.yml"));
    }

    public static synchronized TestCluster get() {
        if (instance == null) {
            try {
                instance = new TestCluster();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        return instance;
    }

    public Config config() {
        return Config.fromKubeconfig(apiServer.getKubeConfigYaml());
    }

    public String kubeconfigYaml() {
        return apiServer.getKubeConfigYaml();
    }

    public KubernetesClient client() {
        return client;
    }

    /** A fresh namespace per test, so tests never see each other's objects. */
    public String newNamespace(String prefix) {
        String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build()).create();
        return name;
    }

    public static Path repoRoot() {
        return Paths.get(System.getProperty("it.repo.root", ".."));
    }

    public static Path binDir() {
        return Paths.get(System.getProperty("it.bin.dir", System.getProperty("user.home") + "/.cache/drover/bin"));
    }

    public static void installCrd(KubernetesClient client, Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            CustomResourceDefinition crd = client.apiextensions().v1().customResourceDefinitions().load(in).item();
            client.resource(crd).forceConflicts().serverSideApply();
            client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
                    .waitUntilCondition(c -> c != null && c.getStatus() != null && c.getStatus().getConditions() != null && c.getStatus().getConditions().stream()
                            .anyMatch(cond -> cond.getType().equals("Established") && cond.getStatus().equals("True")),
                            30, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The namespace and ServiceAccount of {@link #operatorToken}'s release. */
    public static final String OPERATOR_NAMESPACE = "drover-operator-test";
    public static final String OPERATOR_SERVICE_ACCOUNT = "drover-operator";

    /**
     * A token of the operator's ServiceAccount as the Helm chart installs it (release
     * "drover-operator", clusterWide, since tests make a namespace each), with the chart's RBAC
     * and admission policies applied: an operator under test that uses it may do exactly what the
     * chart lets the real one do, no more (as an admin it once passed with writes the chart's
     * RBAC did not grant).
     */
    public synchronized String operatorToken() {
        if (client.namespaces().withName(OPERATOR_NAMESPACE).get() == null) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(OPERATOR_NAMESPACE).endMetadata()
                    .build()).create();
        }
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of(binDir().resolve("helm").toString(),
                "template", "drover-operator", repoRoot().resolve("charts/drover-operator").toString(),
                "--namespace", OPERATOR_NAMESPACE, "--kube-version", "1.34.2", "--set", "clusterWide=true",
                // As the operator's %test configuration (application.properties).
                "--set", "executorImage.allowedImages={localhost/drover-executor,registry.example.com/drover/}"));
        for (String template : java.util.List.of("serviceaccount", "rbac", "operator-writes-policy")) {
            command.addAll(java.util.List.of("--show-only", "templates/" + template + ".yaml"));
        }
        try {
            Command.Result rendered = Command.run(command);
            if (rendered.exit() != 0) {
                throw new IllegalStateException("helm template failed: " + rendered.output());
            }
            client.resourceList(rendered.output()).forceConflicts().serverSideApply();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        String token = client.serviceAccounts().inNamespace(OPERATOR_NAMESPACE).withName(OPERATOR_SERVICE_ACCOUNT)
                .tokenRequest(new io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder().withNewSpec()
                        .withExpirationSeconds(24 * 3600L).endSpec().build())
                .getStatus().getToken();
        // Before the operator starts: the token is the ServiceAccount (the policies match its
        // name), RBAC lets it write, and the API server has loaded each of the three policies
        // (they load one by one): a write of what the operator never makes is refused by them,
        // not let through and not refused by RBAC.
        Config tokenOnly = new io.fabric8.kubernetes.client.ConfigBuilder(Config.empty()).withMasterUrl(config().getMasterUrl())
                .withCaCertData(config().getCaCertData()).withCaCertFile(config().getCaCertFile()).withOauthToken(token).build();
        try (KubernetesClient asOperator = new KubernetesClientBuilder().withConfig(tokenOnly).build()) {
            var foreign = new io.fabric8.kubernetes.api.model.ServiceBuilder().withNewMetadata().withName("not-the-operators")
                    .endMetadata().withNewSpec().addNewPort().withPort(80).endPort().endSpec().build();
            awaitRefused("the writes policy", "the drover operator writes only objects labelled",
                    () -> asOperator.services().inNamespace(OPERATOR_NAMESPACE).resource(foreign).dryRun().create());
            // Labelled and owned as the operator's own (so the writes policy lets it through), with the host's network.
            var hostNetwork = new io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder().withNewMetadata()
                    .withName("host-network").addToLabels("app.kubernetes.io/managed-by", "drover-operator")
                    .addNewOwnerReference().withApiVersion("drover.io/v1alpha1").withKind("ExecutorCluster").withName("x")
                    .withUid("00000000-0000-0000-0000-000000000000").withController(true).endOwnerReference().endMetadata()
                    .withNewSpec().withNewSelector().addToMatchLabels("app", "probe").endSelector()
                    .withNewTemplate().withNewMetadata().addToLabels("app", "probe").endMetadata()
                    .withNewSpec().withAutomountServiceAccountToken(false).withHostNetwork(true)
                    .addNewContainer().withName("c").withImage("localhost/drover-executor").endContainer()
                    .endSpec().endTemplate().endSpec().build();
            awaitRefused("the pods policy", "-operator-pods'",
                    () -> asOperator.apps().statefulSets().inNamespace(OPERATOR_NAMESPACE).resource(hostNetwork).dryRun().create());
            // Someone else's StatefulSet, of no replicas (its Scale's selector is its own, app=probe):
            // the operator's token may not scale it.
            var theirs = new io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder(hostNetwork).editMetadata()
                    .withName("not-an-executor").withLabels(java.util.Map.of()).withOwnerReferences().endMetadata()
                    .editSpec().withReplicas(0).editTemplate().editSpec().withHostNetwork(false).endSpec().endTemplate()
                    .endSpec().build();
            client.apps().statefulSets().inNamespace(OPERATOR_NAMESPACE).resource(theirs).serverSideApply();
            awaitRefused("the scales policy", "the drover operator scales only executor StatefulSets",
                    () -> asOperator.apps().statefulSets().inNamespace(OPERATOR_NAMESPACE).withName("not-an-executor")
                            .scale(new io.fabric8.kubernetes.api.model.autoscaling.v1.ScaleBuilder().withNewMetadata()
                                    .withName("not-an-executor").withNamespace(OPERATOR_NAMESPACE).endMetadata()
                                    .withNewSpec().withReplicas(1).endSpec().build()));
        }
        return token;
    }

    /** Waits until the operator's token is refused {@code write} with a message containing {@code refusal}. */
    private static void awaitRefused(String policy, String refusal, Runnable write) {
        org.awaitility.Awaitility.await("the chart's " + policy + " binds the operator's token").atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(200)).until(() -> {
                    try {
                        write.run();
                        return false;
                    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                        return e.getMessage().contains(refusal);
                    }
                });
    }

    /** KEDA's own CRDs, from the KEDA module (tools/build-binaries.sh keda-crds). */
    public void installKedaCrds() {
        Path dir = Paths.get(System.getProperty("it.keda.crds"));
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(f -> f.toString().endsWith(".yaml")).sorted().forEach(f -> installCrd(client, f));
        } catch (IOException e) {
            throw new IllegalStateException("KEDA CRDs not found in " + dir + ": run tools/build-binaries.sh keda-crds", e);
        }
    }

    /** Starts the garbage collector once; tests of deletion call this first. */
    public synchronized void ensureGarbageCollector() {
        if (garbageCollector == null) {
            try {
                garbageCollector = startGarbageCollector();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private Process startGarbageCollector() throws IOException {
        Path binary = binDir().resolve("kube-controller-manager");
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException(binary + " is missing: run `tools/build-binaries.sh node` (make test does)");
        }
        Path log = Files.createTempFile("drover-kcm", ".log");
        return new ProcessBuilder(binary.toString(),
                "--kubeconfig=" + kubeconfig,
                "--controllers=garbagecollector",
                "--leader-elect=false",
                "--use-service-account-credentials=false",
                "--secure-port=0")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    private synchronized void stop() {
        if (garbageCollector != null) {
            garbageCollector.toHandle().destroy();
            try {
                garbageCollector.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        apiServer.stop();
        try {
            Files.deleteIfExists(kubeconfig);
        } catch (IOException ignored) {
            // a temp file; nothing to undo
        }
    }

    public static final Duration TIMEOUT = Duration.ofSeconds(30);
}
