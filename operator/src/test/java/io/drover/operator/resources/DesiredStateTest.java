package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.testing.Clusters;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The objects the operator wants to exist, built from a spec in memory: no apiserver. What the
 * API server then does with them (defaults, validation, owner references, rolls) is tested
 * against a real one in ExecutorClusterReconcilerTest.
 */
class DesiredStateTest {
    @Test
    void theStatefulSetRunsTheExecutorsHardened() {
        ExecutorCluster ec = cluster("""
                image: registry.example.com/drover-executor:1.2.3
                jvmOptions: -XX:+UseSerialGC
                env:
                - {name: DROVER_HTTP_URL, value: "http://x/$(QUARKUS_DATASOURCE_PASSWORD)"}
                """);
        StatefulSet sts = ExecutorStatefulSet.build(ec, "default/image:1", "IfNotPresent", "hash-1", 3);

        assertThat(sts.getMetadata().getName()).isEqualTo("payments");
        assertThat(sts.getMetadata().getNamespace()).isEqualTo("team");
        assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
        assertThat(sts.getSpec().getServiceName()).isEqualTo(Names.headlessService(ec));
        assertThat(sts.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
        assertThat(sts.getSpec().getTemplate().getMetadata().getAnnotations()).containsEntry(ExecutorStatefulSet.CONFIG_HASH, "hash-1");

        var pod = sts.getSpec().getTemplate().getSpec();
        assertThat(pod.getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(10001L);
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        Container c = pod.getContainers().getFirst();
        assertThat(c.getImage()).isEqualTo("registry.example.com/drover-executor:1.2.3");
        assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(c.getTerminationMessagePolicy()).isEqualTo("FallbackToLogsOnError");
        assertThat(c.getEnvFrom()).as("no ConfigMap every revision's pods read").isEmpty();

        Map<String, EnvVar> env = new java.util.HashMap<>();
        c.getEnv().forEach(e -> env.put(e.getName(), e));
        assertThat(env.get("QUARKUS_DATASOURCE_PASSWORD").getValueFrom().getSecretKeyRef().getName()).isEqualTo("jobs-db");
        assertThat(env.get("DROVER_API_TOKEN").getValueFrom().getSecretKeyRef().getName()).isEqualTo(Names.apiTokens(ec));
        assertThat(env.get("DROVER_API_READTOKEN").getValueFrom().getSecretKeyRef().getName()).isEqualTo(Names.apiTokens(ec));
        assertThat(env.get("JAVA_TOOL_OPTIONS").getValue()).isEqualTo("-XX:+UseSerialGC");
        assertThat(env.get("DROVER_HTTP_URL").getValue()).as("written literally: no $(VAR) expansion by the kubelet")
                .isEqualTo("http://x/$$(QUARKUS_DATASOURCE_PASSWORD)");
    }

    @Test
    void withoutAnImageTheOperatorsDefaultRuns() {
        StatefulSet sts = ExecutorStatefulSet.build(cluster(""), "default/image:1", "IfNotPresent", "h", 2);
        Container c = sts.getSpec().getTemplate().getSpec().getContainers().getFirst();
        assertThat(c.getImage()).isEqualTo("default/image:1");
        assertThat(c.getImagePullPolicy()).isEqualTo("IfNotPresent");
        assertThat(c.getResources()).isEqualTo(DefaultResources.c5TwoXLarge());
    }

    @Test
    void thePodTemplateCarriesTheExecutorsSettingsUnderTheirOneName() {
        ExecutorCluster ec = cluster("""
                lockMode: Global
                threads: 16
                lockExpiry: 1m30s
                acquireInterval: 500ms
                jobTimeouts: {report: 2m, email: 10s}
                """);
        Map<String, String> env = ExecutorEnvironment.environment(ec.getSpec());
        assertThat(ExecutorStatefulSet.build(ec, "i", "IfNotPresent", "h", 1).getSpec().getTemplate().getSpec().getContainers()
                .getFirst().getEnv()).as("in the pod template, each revision its own")
                .anySatisfy(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("DROVER_THREADS=16"))
                .anySatisfy(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("DROVER_LOCKEXPIRY=PT1M30S"));
        assertThat(env).containsEntry("DROVER_LOCKMODE", "Global")
                .containsEntry("DROVER_THREADS", "16")
                .containsEntry("DROVER_LOCKEXPIRY", "PT1M30S")
                .containsEntry("DROVER_ACQUIREINTERVAL", "PT0.5S")
                .containsEntry("DROVER_JOBTIMEOUTS", "{\"email\":\"PT10S\",\"report\":\"PT2M\"}")
                .containsEntry("QUARKUS_DATASOURCE_JDBC_URL",
                        "jdbc:postgresql://db.example.internal:5432/jobs?sslmode=require&ApplicationName=drover-executor");
        assertThat(env).as("settings the spec leaves out take the executor's defaults")
                .doesNotContainKeys("DROVER_QUEUESIZE", "DROVER_MAXATTEMPTS", "DROVER_JOBTIMEOUT");
        assertThat(env).as("a stopping node waits for the longest job timeout (jobTimeout 15m by default)")
                .containsEntry("DROVER_SHUTDOWNGRACEPERIOD", "PT15M10S");
        assertThat(env.keySet()).as("no credential ever goes in as a plain value")
                .noneMatch(k -> k.contains("PASSWORD") || k.contains("TOKEN") || k.contains("USERNAME"));
    }

    @Test
    void maxJobDurationSetsTheShutdownGraceAndTheJobTimeout() {
        Map<String, String> env = ExecutorEnvironment.environment(cluster("maxJobDuration: 2m\n").getSpec());
        assertThat(env).containsEntry("DROVER_SHUTDOWNGRACEPERIOD", "PT2M10S").containsEntry("DROVER_JOBTIMEOUT", "PT2M");
        Map<String, String> explicit = ExecutorEnvironment.environment(cluster("maxJobDuration: 2m\nshutdownGracePeriod: 5m\n").getSpec());
        assertThat(explicit).as("what the user writes wins").containsEntry("DROVER_SHUTDOWNGRACEPERIOD", "PT5M");
        Map<String, String> flowable = ExecutorEnvironment.environment(cluster("engine: Flowable\nlockMode: Global\nmaxJobDuration: 2m\n")
                .getSpec());
        assertThat(flowable).as("Flowable has no job timeout: maxJobDuration sets only the grace periods")
                .containsEntry("DROVER_SHUTDOWNGRACEPERIOD", "PT2M10S").doesNotContainKey("DROVER_JOBTIMEOUT");
    }

    /**
     * Without maxJobDuration a stopping node still waits for its longest job (the executor's own
     * 30s cut every longer job on a scale-down, roll or drain, and it ran again elsewhere), within
     * a terminationGracePeriodSeconds the user set.
     */
    @Test
    void withoutMaxJobDurationTheShutdownGraceFollowsTheLongestJobTimeout() {
        ExecutorCluster longest = cluster("jobTimeout: 5m\njobTimeouts: {report: 2h, email: 10s}\n");
        assertThat(ExecutorEnvironment.environment(longest.getSpec())).containsEntry("DROVER_SHUTDOWNGRACEPERIOD", "PT2H10S")
                .containsEntry("DROVER_JOBTIMEOUT", "PT5M");
        assertThat(GracePeriods.terminationGracePeriodSeconds(longest.getSpec())).as("and the pod outlives it by 30 s")
                .isEqualTo(2 * 3600 + 40);
        // The CRD now refuses this spec (terminationGracePeriodSeconds under the longest timeout +
        // 20 s); one applied under an older CRD still gets a shutdown grace its pod outlives.
        ExecutorCluster podGrace = cluster("jobTimeout: 5m\nterminationGracePeriodSeconds: 120\n");
        assertThat(ExecutorEnvironment.environment(podGrace.getSpec())).as("within the pod's grace the user set, 10 s for the last outcomes")
                .containsEntry("DROVER_SHUTDOWNGRACEPERIOD", "PT1M50S");
        assertThat(GracePeriods.terminationGracePeriodSeconds(podGrace.getSpec())).isEqualTo(120);
        ExecutorCluster explicit = cluster("jobTimeout: 5m\nshutdownGracePeriod: 20s\n");
        assertThat(ExecutorEnvironment.environment(explicit.getSpec())).as("what the user writes wins")
                .containsEntry("DROVER_SHUTDOWNGRACEPERIOD", "PT20S");
        ExecutorCluster flowable = cluster("engine: Flowable\nlockMode: Global\n");
        assertThat(ExecutorEnvironment.environment(flowable.getSpec())).as("Flowable has no job timeout to follow")
                .doesNotContainKey("DROVER_SHUTDOWNGRACEPERIOD");
        assertThat(GracePeriods.terminationGracePeriodSeconds(flowable.getSpec())).isEqualTo(60);
    }

    @Test
    void kubernetesDurationsBecomeIso() {
        assertThat(KubeDurations.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(KubeDurations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(KubeDurations.parse("1.5h")).isEqualTo(Duration.ofMinutes(90));
        assertThat(KubeDurations.seconds("200ms")).as("KEDA's whole seconds, at least 1").isEqualTo(1);
        for (String bad : new String[] {"", "90", "1m30", "abc", "1d"}) {
            assertThatThrownBy(() -> KubeDurations.parse(bad)).as(bad).hasMessageContaining("not a duration like 30s");
        }
    }

    private static ExecutorCluster cluster(String extraSpec) {
        ExecutorCluster ec = Clusters.parse(Clusters.yaml("payments", extraSpec));
        ec.getMetadata().setNamespace("team");
        return ec;
    }
}
