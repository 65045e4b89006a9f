package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.Engine;
import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.api.v1alpha1.ExecutorClusterSpec;
import io.drover.operator.api.v1alpha1.SecretKeyRef;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The executor StatefulSet. A StatefulSet rather than a Deployment because each executor's
 * node name is its pod name: a restarted executor-1 comes back as executor-1 and releases, at
 * startup, the job locks its previous life held (no wait for lockExpiry).
 */
public final class ExecutorStatefulSet {
    public static final String CONFIG_HASH = "drover.io/config-hash";
    public static final String CONTAINER = "executor";
    public static final int HTTP_PORT = 8080;
    /** The image's non-root user (tools/build-image.sh). */
    static final long EXECUTOR_UID = 10001;

    private ExecutorStatefulSet() {
    }

    /**
     * @param configHash changes whenever the executor must restart to see new settings or
     *                   credentials: it is a pod template annotation, so a change rolls the pods
     * @param replicas   the count to write: spec.replicas, or, while autoscaling, the count the
     *                   autoscaler last set (the operator never overrides it)
     */
    public static StatefulSet build(ExecutorCluster ec, String defaultImage, String defaultPullPolicy,
                                    String configHash, int replicas) {
        ExecutorClusterSpec spec = ec.getSpec();
        Map<String, String> podAnnotations = new TreeMap<>();
        podAnnotations.put("prometheus.io/scrape", "true");
        podAnnotations.put("prometheus.io/port", String.valueOf(HTTP_PORT));
        podAnnotations.put("prometheus.io/path", "/q/metrics");
        podAnnotations.put(CONFIG_HASH, configHash);

        PodSpecBuilder pod = new PodSpecBuilder()
                .withContainers(container(ec, defaultImage, defaultPullPolicy))
                .withTerminationGracePeriodSeconds(GracePeriods.terminationGracePeriodSeconds(spec))
                // Executors never call the Kubernetes API, and service-link env vars would only
                // add noise (and collide with DROVER_* if a Service were named "drover").
                .withAutomountServiceAccountToken(false)
                .withEnableServiceLinks(false)
                .withNewSecurityContext()
                .withRunAsNonRoot(true)
                .withRunAsUser(EXECUTOR_UID)
                .withRunAsGroup(EXECUTOR_UID)
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .endSecurityContext()
                .addNewVolume().withName("tmp").withNewEmptyDir().withSizeLimit(new io.fabric8.kubernetes.api.model.Quantity("256Mi")).endEmptyDir().endVolume();
        DatabaseCa.volume(spec.database).ifPresent(pod::addToVolumes);
        PodPlacement.apply(ec, pod);

        return new StatefulSetBuilder()
                .withNewMetadata()
                .withName(Names.statefulSet(ec))
                .withNamespace(ec.getMetadata().getNamespace())
                .withLabels(Labels.all(ec))
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withServiceName(Names.headlessService(ec))
                // Executors are independent of each other: start and stop them all at once.
                .withPodManagementPolicy("Parallel")
                .withNewUpdateStrategy().withType("RollingUpdate").endUpdateStrategy()
                .withRevisionHistoryLimit(5)
                .withNewSelector().withMatchLabels(Labels.selector(ec)).endSelector()
                .withNewTemplate()
                .withNewMetadata().withLabels(Labels.all(ec)).withAnnotations(podAnnotations).endMetadata()
                .withSpec(pod.build())
                .endTemplate()
                .endSpec()
                .build();
    }

    private static Container container(ExecutorCluster ec, String defaultImage, String defaultPullPolicy) {
        ExecutorClusterSpec spec = ec.getSpec();
        ContainerBuilder container = new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(spec.image != null ? spec.image : defaultImage)
                .withImagePullPolicy(spec.imagePullPolicy != null ? spec.imagePullPolicy : defaultPullPolicy)
                .addNewPort().withName("http").withContainerPort(HTTP_PORT).withProtocol("TCP").endPort()
                .withEnv(env(ec))
                .withResources(spec.resources != null ? spec.resources : DefaultResources.c5TwoXLarge())
                // Startup covers Flyway migrations on first start; afterwards liveness only
                // restarts an executor whose engine stopped, never one waiting for the database.
                .withStartupProbe(probe("/q/health/started", 2, 90))
                .withReadinessProbe(probe("/q/health/ready", 5, 3))
                // A node that cannot start writes "Reason: cause" to /dev/termination-log; any
                // other crash leaves its last log lines there. The operator reads it from the
                // pod's status (PodProblems): the cluster's conditions say why, without log access.
                .withTerminationMessagePolicy("FallbackToLogsOnError")
                .withLivenessProbe(probe("/q/health/live", 10, 6))
                .withNewSecurityContext()
                .withAllowPrivilegeEscalation(false)
                .withReadOnlyRootFilesystem(true)
                .withRunAsNonRoot(true)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .endSecurityContext()
                .addNewVolumeMount().withName("tmp").withMountPath("/tmp").endVolumeMount();
        DatabaseCa.volumeMount(spec.database).ifPresent(container::addToVolumeMounts);
        return container.build();
    }

    private static List<EnvVar> env(ExecutorCluster ec) {
        ExecutorClusterSpec spec = ec.getSpec();
        List<EnvVar> env = new ArrayList<>();
        // The settings in the template itself, not in a ConfigMap every revision reads: a
        // container that restarts in a pod not yet rolled keeps its own revision's settings.
        ExecutorEnvironment.environment(spec).forEach((name, value) ->
                env.add(new EnvVarBuilder().withName(name).withValue(literal(value)).build()));
        var creds = spec.database.credentialsSecret;
        env.add(secretEnv("QUARKUS_DATASOURCE_USERNAME", creds.name, creds.usernameKeyOrDefault()));
        env.add(secretEnv("QUARKUS_DATASOURCE_PASSWORD", creds.name, creds.passwordKeyOrDefault()));
        SecretKeyRef token = spec.apiTokenSecret;
        if (spec.engine == Engine.Flowable) {
            // The Flowable executor serves no job API: no token to hand it. Its lock owner is the
            // pod's namespace and name, so same-named clusters sharing a schema keep apart.
            env.add(new EnvVarBuilder().withName("POD_NAMESPACE").withNewValueFrom().withNewFieldRef()
                    .withFieldPath("metadata.namespace").endFieldRef().endValueFrom().build());
        } else if (token != null) {
            env.add(secretEnv("DROVER_API_TOKEN", token.name, token.key));
        } else {
            env.add(secretEnv("DROVER_API_TOKEN", Names.apiTokens(ec), ApiTokens.TOKEN_KEY));
            env.add(secretEnv("DROVER_API_READTOKEN", Names.apiTokens(ec), ApiTokens.READ_TOKEN_KEY));
        }
        if (spec.jvmOptions != null && !spec.jvmOptions.isBlank()) {
            env.add(new EnvVarBuilder().withName("JAVA_TOOL_OPTIONS").withValue(literal(spec.jvmOptions)).build());
        }
        if (spec.env != null) {
            // A plain value, or a key of a Secret that opted in (ReferencedSecrets checked it before
            // this is written); the API server refused the names set above.
            spec.env.forEach(e -> env.add(e.valueFrom != null
                    ? secretEnv(e.name, e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.key)
                    : new EnvVarBuilder().withName(e.name).withValue(literal(e.value)).build()));
        }
        return env;
    }


    /**
     * The value as written: the kubelet expands $(NAME) in env values to other variables of the
     * container, which would let a value copy the password or a token ($$ is a literal $).
     */
    static String literal(String value) {
        return value == null ? null : value.replace("$", "$$");
    }

    private static EnvVar secretEnv(String name, String secret, String key) {
        return new EnvVarBuilder().withName(name)
                .withNewValueFrom().withNewSecretKeyRef().withName(secret).withKey(key).endSecretKeyRef().endValueFrom()
                .build();
    }

    private static Probe probe(String path, int periodSeconds, int failureThreshold) {
        return new ProbeBuilder()
                .withNewHttpGet().withPath(path).withNewPort("http").endHttpGet()
                .withPeriodSeconds(periodSeconds)
                .withTimeoutSeconds(3)
                .withFailureThreshold(failureThreshold)
                .build();
    }
}
