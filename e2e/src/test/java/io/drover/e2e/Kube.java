package io.drover.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.awaitility.Awaitility.await;

/** The cluster as the suites drive it: kubectl and helm as a user runs them, and what they wait for. */
final class Kube {
    static final String OPERATOR_NS = "drover-system";
    static final String RELEASE = "drover-operator";
    static final Duration READY_TIMEOUT = Duration.ofMinutes(4);

    final E2EEnvironment env;
    final KubernetesClient client;

    Kube(E2EEnvironment env, KubernetesClient client) {
        this.env = env;
        this.client = client;
    }

    Commands.Result kubectl(String... args) {
        List<String> cmd = new ArrayList<>(List.of(env.bin("kubectl")));
        cmd.addAll(List.of(args));
        return Commands.run(cmd);
    }

    void apply(String yaml) {
        try {
            Path file = Files.createTempFile("ec", ".yaml");
            Files.writeString(file, yaml);
            kubectl("apply", "-f", file.toString()).orFail();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * `helm upgrade --install` of the chart with the images under test, managing one namespace
     * (created first: the chart puts the operator's Role there); waits until the operator is ready.
     */
    void installOperator(String watchedNamespace) {
        kubectl("apply", "--server-side", "-f", env.repo().resolve("crds").toString()).orFail();
        client.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
                .withName(watchedNamespace).endMetadata().build()).serverSideApply();
        List<String> helm = new ArrayList<>(List.of(env.bin("helm"), "upgrade", "--install", RELEASE,
                env.repo().resolve("charts/drover-operator").toString(), "--namespace", OPERATOR_NS, "--create-namespace",
                "--set", "image.repository=" + repository(env.operatorImage()), "--set", "image.tag=" + tag(env.operatorImage()),
                "--set", "executorImage.repository=" + repository(env.executorImage()),
                "--set", "executorImage.tag=" + tag(env.executorImage()),
                "--set", "flowableImage.repository=" + repository(env.flowableImage()),
                "--set", "flowableImage.tag=" + tag(env.flowableImage()),
                "--set", "watchNamespaces={" + watchedNamespace + "}",
                "--set", "logging.json=false", "--wait", "--timeout", "5m"));
        // Locally: keep the operator off the fake (kwok) node, whose pods never run (run.sh sets it).
        env.operatorSetJson().ifPresent(json -> helm.addAll(List.of("--set-json", json)));
        Commands.run(helm).orFail();
    }

    /**
     * A suite's own namespace, empty (deleted first, with whatever an interrupted run left), the
     * operator managing it, and the database Secret "jobs-db", opted in for ExecutorClusters.
     */
    void freshNamespaceWithOperator(String ns) {
        client.namespaces().withName(ns).delete();
        org.awaitility.Awaitility.await("namespace " + ns + " gone").atMost(Duration.ofMinutes(2))
                .until(() -> client.namespaces().withName(ns).get() == null);
        installOperator(ns);
        client.secrets().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.SecretBuilder().withNewMetadata()
                .withName("jobs-db").addToLabels("drover.io/executor-secret", "true").endMetadata()
                .withStringData(Map.of("username", env.dbUser(), "password", env.dbPassword())).build()).serverSideApply();
    }

    /** `kubectl auth can-i` as the operator's ServiceAccount: true for "yes". */
    boolean operatorCan(String verb, String resource, String namespace) {
        List<String> args = new ArrayList<>(List.of("auth", "can-i", verb, resource,
                "--as=system:serviceaccount:" + OPERATOR_NS + ":" + RELEASE));
        args.addAll(namespace == null ? List.of("--all-namespaces") : List.of("-n", namespace));
        Commands.Result r = kubectl(args.toArray(String[]::new));
        String out = r.output().strip();
        String answer = out.substring(out.lastIndexOf('\n') + 1); // "yes", "no" or "no - <reason>"
        if (answer.equals("yes")) {
            return true;
        }
        if (answer.startsWith("no")) {
            return false;
        }
        throw new AssertionError("kubectl auth can-i answered neither yes nor no:\n" + r.output());
    }

    void uninstallOperator() {
        Commands.run(List.of(env.bin("helm"), "uninstall", RELEASE, "--namespace", OPERATOR_NS, "--ignore-not-found",
                "--wait", "--timeout", "3m")).orFail();
    }

    GenericKubernetesResource cluster(String ns, String name) {
        return client.genericKubernetesResources("drover.io/v1alpha1", "ExecutorCluster").inNamespace(ns).withName(name).get();
    }

    String conditionStatus(String ns, String name, String type) {
        Map<?, ?> c = condition(ns, name, type);
        return c == null ? "" : String.valueOf(c.get("status"));
    }

    /** The condition's type, status and reason, e.g. for a log line. */
    Map<?, ?> condition(String ns, String name, String type) {
        GenericKubernetesResource ec = cluster(ns, name);
        if (ec != null && ec.getAdditionalProperties().get("status") instanceof Map<?, ?> status
                && status.get("conditions") instanceof List<?> cs) {
            for (Object c : cs) {
                if (c instanceof Map<?, ?> m && type.equals(m.get("type"))) {
                    return m;
                }
            }
        }
        return null;
    }

    void awaitCondition(String ns, String name, String type, String status) {
        await(name + " " + type + "=" + status).atMost(READY_TIMEOUT).pollInterval(Duration.ofSeconds(1))
                .until(() -> conditionStatus(ns, name, type).equals(status));
    }

    void awaitReady(String ns, String name, int nodes) {
        await("ExecutorCluster " + name + " Ready with " + nodes + " nodes").atMost(READY_TIMEOUT)
                .pollInterval(Duration.ofSeconds(2)).until(() -> {
                    GenericKubernetesResource ec = cluster(ns, name);
                    if (ec == null || !(ec.getAdditionalProperties().get("status") instanceof Map<?, ?> status)) {
                        return false;
                    }
                    return "True".equals(conditionStatus(ns, name, "Ready"))
                            && Integer.valueOf(nodes).equals(status.get("readyReplicas"));
                });
    }

    StatefulSet statefulSet(String ns, String name) {
        return client.apps().statefulSets().inNamespace(ns).withName(name).get();
    }

    /** A setting as the StatefulSet's pod template gives it to its executors ({@code DROVER_THREADS}), or null. */
    String setting(String ns, String statefulSet, String variable) {
        return statefulSet(ns, statefulSet).getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv().stream()
                .filter(e -> e.getName().equals(variable)).map(io.fabric8.kubernetes.api.model.EnvVar::getValue)
                .findFirst().orElse(null);
    }

    int replicas(String ns, String name) {
        StatefulSet sts = statefulSet(ns, name);
        return sts == null ? -1 : nz(sts.getSpec().getReplicas());
    }

    List<Pod> pods(String ns, String name) {
        return client.pods().inNamespace(ns).withLabel("app.kubernetes.io/instance", name).list().getItems();
    }

    /**
     * SIGKILL of the executor's JVM: through containerd locally, else a zero-grace forced delete.
     * Returns the kill with the instants taken around the command, as {@link Runs} judges the
     * jobs it may run twice.
     */
    Runs.Kill sigkill(Pod pod) {
        Instant sent = Instant.now();
        String id = pod.getStatus().getContainerStatuses().get(0).getContainerID().replaceFirst("^containerd://", "");
        if (env.containerdSocket().isPresent()) {
            Commands.run(List.of("ctr", "--address", env.containerdSocket().get(), "-n", "k8s.io", "tasks", "kill", "-s",
                    "SIGKILL", id)).orFail();
        } else {
            client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                    .withGracePeriod(0).delete();
        }
        return new Runs.Kill(pod.getMetadata().getName(), sent, Instant.now());
    }

    static String repository(String image) {
        return image.substring(0, image.lastIndexOf(':'));
    }

    static String tag(String image) {
        return image.substring(image.lastIndexOf(':') + 1);
    }

    static int nz(Integer i) {
        return i == null ? 0 : i;
    }

    static void log(String message) {
        System.out.println("[e2e] " + message);
    }
}
