package io.drover.operator.status;

import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.api.v1alpha1.ExecutorClusterStatus;
import io.drover.operator.testing.Clusters;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The status the operator writes, from a StatefulSet and its findings: no apiserver needed. */
class ClusterStatusTest {
    private final ExecutorCluster ec = cluster();

    @Test
    void allNodesReadyAndUpToDate() {
        ExecutorClusterStatus s = ClusterStatus.of(ec, sts(3, 3, 3, 3, "r1", "r1"), applied());
        assertThat(s.nodes).isEqualTo("3/3");
        assertCondition(s, Conditions.READY, "True", "NodesReady", "3 of 3 executor nodes ready");
        assertCondition(s, Conditions.PROGRESSING, "False", "UpToDate", "All 3 executor nodes run the current configuration");
        assertCondition(s, Conditions.DEGRADED, "False", "AsExpected", "The operator applied the latest spec");
        assertCondition(s, Conditions.AUTOSCALING, "False", "Disabled", "spec.autoscaling is off");
        assertCondition(s, Conditions.BOTTLENECK, "Unknown", "NoFigures", "No executor node answered with its figures");
        assertThat(s.observedGeneration).isEqualTo(4);
    }

    /**
     * A pass that was blocked (a Secret missing, an image not allowed) or failed wrote nothing:
     * the StatefulSet is settled on an earlier spec, and Progressing said UpToDate, which a
     * `kubectl wait` took for the change rolled out.
     */
    @Test
    void aBlockedOrFailedPassIsNoSpecRolledOut() {
        ExecutorClusterStatus blocked = ClusterStatus.of(ec, sts(3, 3, 3, 3, "r1", "r1"),
                ClusterStatus.Findings.blocked("Secret jobs-db", "SecretNotFound", "Secret jobs-db does not exist"));
        assertCondition(blocked, Conditions.PROGRESSING, "False", "SpecNotApplied", "The latest spec (generation 4) is not"
                + " applied: SecretNotFound (see Degraded); the executors run the spec applied before");
        assertCondition(blocked, Conditions.DEGRADED, "True", "SecretNotFound", "Secret jobs-db does not exist");
        assertCondition(blocked, Conditions.READY, "True", "NodesReady", "3 of 3 executor nodes ready");
        ExecutorClusterStatus failed = ClusterStatus.of(ec, sts(3, 3, 3, 3, "r1", "r1"),
                ClusterStatus.Findings.reconcileFailed("the API server refused a request (422): ..."));
        assertCondition(failed, Conditions.PROGRESSING, "False", "SpecNotApplied", "The latest spec (generation 4) is not"
                + " applied: ReconcileFailed (see Degraded); the executors run the spec applied before");
        // Once it says so, it says so until a pass applies the generation.
        ec.setStatus(blocked);
        assertCondition(ClusterStatus.of(ec, sts(3, 3, 3, 3, "r1", "r1"), ClusterStatus.Findings.blocked("Secret jobs-db",
                "SecretNotFound", "gone")), Conditions.PROGRESSING, "False", "SpecNotApplied", "The latest spec (generation 4)"
                + " is not applied: SecretNotFound (see Degraded); the executors run the spec applied before");
        // A generation applied by an earlier pass stays applied when a later pass is blocked (a Secret gone a moment).
        ec.setStatus(ClusterStatus.of(ec, sts(3, 3, 3, 3, "r1", "r1"), applied()));
        assertCondition(ClusterStatus.of(ec, sts(3, 3, 3, 3, "r1", "r1"), ClusterStatus.Findings.blocked("Secret jobs-db",
                "SecretNotFound", "gone")), Conditions.PROGRESSING, "False", "UpToDate", "All 3 executor nodes run the current configuration");
        ec.setStatus(null);
    }

    @Test
    void aRollShowsAsProgressing() {
        ExecutorClusterStatus s = ClusterStatus.of(ec, sts(3, 3, 2, 1, "r1", "r2"), applied());
        assertCondition(s, Conditions.PROGRESSING, "True", "RollingUpdate", "1 of 3 executor nodes run the current configuration");
        assertCondition(s, Conditions.READY, "False", "NodesNotReady", "2 of 3 executor nodes ready");
    }

    /**
     * A roll held up by a pod that never becomes ready stopped there for good with Progressing
     * True: a `kubectl wait` or a GitOps tool waiting for the roll to end waited for ever. Past
     * the progress deadline (the reconciler finds the pod: RollStall) it is False, naming the pod
     * and Ready's cause; a roll that moves is RollingUpdate.
     */
    @Test
    void aRollHeldUpPastTheDeadlineIsNoLongerProgressing() {
        var stall = java.util.Optional.of(new RollStall.Stall("payments-2", java.time.Instant.parse("2026-11-29T00:00:00Z")));
        ExecutorClusterStatus s = ClusterStatus.of(ec, sts(3, 3, 2, 1, "r1", "r2"), applied()
                .withPods(java.util.Optional.of(new PodProblems.Problem("DatabaseUnreachable", "pod payments-2: the database does not answer")))
                .withStall(stall));
        assertCondition(s, Conditions.PROGRESSING, "False", ClusterStatus.PROGRESS_DEADLINE_EXCEEDED, "1 of 3 executor nodes run"
                + " the current configuration, and pod payments-2 has not been ready since 2026-11-29T00:00:00Z, past the"
                + " operator's progressDeadline: the StatefulSet controller waits for it before going on (DatabaseUnreachable:"
                + " pod payments-2: the database does not answer)");
        assertCondition(s, Conditions.READY, "False", "DatabaseUnreachable", "2 of 3 executor nodes ready; pod payments-2: the"
                + " database does not answer");
        ExecutorClusterStatus scaling = ClusterStatus.of(ec, sts(4, 3, 2, 3, "r1", "r1"), applied().withStall(stall));
        assertThat(condition(scaling, Conditions.PROGRESSING).getMessage()).startsWith("Scaling from 3 to 4, and pod payments-2")
                .endsWith("; Ready says why");
        ExecutorClusterStatus settled = ClusterStatus.of(ec, sts(3, 3, 2, 3, "r2", "r2"), applied().withStall(stall));
        assertCondition(settled, Conditions.PROGRESSING, "False", "UpToDate", "All 3 executor nodes run the current configuration");
    }

    @Test
    void aScaleShowsAsProgressing() {
        // As the StatefulSet controller counts them: the 2 pods that exist are updated, not 4.
        ExecutorClusterStatus s = ClusterStatus.of(ec, sts(4, 2, 2, 2, "r1", "r1"), applied());
        assertCondition(s, Conditions.PROGRESSING, "True", "Scaling", "Scaling from 2 to 4 executor nodes");
        ExecutorClusterStatus down = ClusterStatus.of(ec, sts(2, 4, 4, 4, "r1", "r1"), applied());
        assertCondition(down, Conditions.PROGRESSING, "True", "Scaling", "Scaling from 4 to 2 executor nodes");
        ExecutorClusterStatus rollingWhileScaling = ClusterStatus.of(ec, sts(4, 2, 2, 1, "r1", "r2"), applied());
        assertCondition(rollingWhileScaling, Conditions.PROGRESSING, "True", "RollingUpdate",
                "1 of 4 executor nodes run the current configuration");
    }

    @Test
    void aClusterScaledToZeroIsReady() {
        ExecutorClusterStatus s = ClusterStatus.of(ec, sts(0, 0, 0, 0, "r1", "r1"), applied());
        assertCondition(s, Conditions.READY, "True", "ScaledToZero", "No executor node is wanted now");
        assertThat(s.nodes).isEqualTo("0/0");
    }

    /** Scaled to zero by an autoscaler that cannot wake it: due jobs would wait behind a Ready cluster. */
    @Test
    void aClusterAtZeroWhoseAutoscalerCannotWakeItIsNotReady() {
        ExecutorCluster auto = Clusters.parse(Clusters.yaml("payments", "autoscaling: {enabled: true, minReplicas: 0}"));
        ExecutorClusterStatus s = ClusterStatus.of(auto, sts(0, 0, 0, 0, "r1", "r1"),
                ClusterStatus.Findings.applied(false, "ScaledObjectNotReady", "KEDA cannot reach the database"));
        assertCondition(s, Conditions.READY, "False", "ScaledToZeroWithoutAutoscaler", "No executor node runs, and the"
                + " autoscaler that starts one when jobs are due is not working (ScaledObjectNotReady): KEDA cannot reach the database");
        ExecutorClusterStatus scaling = ClusterStatus.of(auto, sts(0, 0, 0, 0, "r1", "r1"),
                ClusterStatus.Findings.applied(true, "KedaScaling", "1-4 nodes"));
        assertCondition(scaling, Conditions.READY, "True", "ScaledToZero", "No executor node is wanted now");
    }

    @Test
    void thePodsRootCauseReplacesTheSymptom() {
        var problem = new PodProblems.Problem("DatabaseAuthenticationFailed", "executor-0: password authentication failed");
        ExecutorClusterStatus s = ClusterStatus.of(ec, sts(1, 1, 0, 1, "r1", "r1"), applied().withPods(Optional.of(problem)));
        assertCondition(s, Conditions.READY, "False", "DatabaseAuthenticationFailed",
                "0 of 1 executor nodes ready; executor-0: password authentication failed");
        assertCondition(s, Conditions.DEGRADED, "True", "DatabaseAuthenticationFailed", "executor-0: password authentication failed");
    }

    /** A node waiting out a database restart: Ready says why; nothing for anyone to act on yet. */
    @Test
    void aCauseThatMayPassOnItsOwnIsNotDegraded() {
        PodProblems.Problem waiting = new PodProblems.Problem("DatabaseUnreachable",
                "pod jobs-0 is not ready: the database cannot be reached or ended the session (SQLState 08006)", false);
        ExecutorClusterStatus s = ClusterStatus.of(ec, sts(1, 1, 0, 1, "r1", "r1"), applied().withPods(Optional.of(waiting)));
        assertCondition(s, "Ready", "False", "DatabaseUnreachable", "0 of 1 executor nodes ready; " + waiting.message());
        assertCondition(s, "Degraded", "False", "AsExpected", "The operator applied the latest spec");
    }

    @Test
    void aBlockedClusterSaysWhatItWaitsFor() {
        ExecutorClusterStatus s = ClusterStatus.of(ec, null,
                ClusterStatus.Findings.blocked("the referenced Secret", "SecretNotFound", "Secret jobs-db not found"));
        assertCondition(s, Conditions.DEGRADED, "True", "SecretNotFound", "Secret jobs-db not found");
        assertCondition(s, Conditions.AUTOSCALING, "False", "Blocked", "Waiting for the referenced Secret");
        assertCondition(s, Conditions.READY, "False", "NotCreated", "The executor StatefulSet does not exist yet");
    }

    /**
     * A blocked or failed pass changes nothing, the autoscaler's objects included: Autoscaling
     * says what the last applied pass found, not Blocked (KEDA went on scaling the cluster).
     */
    @Test
    void aBlockedPassAfterAnAppliedOneKeepsTheAutoscalingItFound() {
        ec.setStatus(ClusterStatus.of(ec, sts(3, 3, 3, 3, "r1", "r1"),
                ClusterStatus.Findings.applied(true, "ScaledObjectReady", "KEDA scales between 1 and 10 nodes")));
        ExecutorClusterStatus blocked = ClusterStatus.of(ec, sts(3, 3, 3, 3, "r1", "r1"),
                ClusterStatus.Findings.blocked("Secret jobs-db", "SecretNotFound", "Secret jobs-db does not exist"));
        String asBefore = "KEDA scales between 1 and 10 nodes (as the last applied pass found it: the latest spec is not"
                + " applied, see Degraded)";
        assertCondition(blocked, Conditions.AUTOSCALING, "True", "ScaledObjectReady", asBefore);
        ec.setStatus(blocked);
        assertCondition(ClusterStatus.of(ec, sts(3, 3, 3, 3, "r1", "r1"), ClusterStatus.Findings.reconcileFailed("boom")),
                Conditions.AUTOSCALING, "True", "ScaledObjectReady", asBefore); // said once, however many passes
        // Ready reads the same: scaled to zero with KEDA not working is not Ready, blocked pass or not.
        ec.getSpec().autoscaling = new io.drover.operator.api.v1alpha1.AutoscalingSpec();
        ec.getSpec().autoscaling.enabled = true;
        ec.setStatus(ClusterStatus.of(ec, sts(0, 0, 0, 0, "r1", "r1"),
                ClusterStatus.Findings.applied(false, "KedaNotInstalled", "KEDA's CRDs are not installed")));
        ExecutorClusterStatus zero = ClusterStatus.of(ec, sts(0, 0, 0, 0, "r1", "r1"),
                ClusterStatus.Findings.blocked("Secret jobs-db", "SecretNotFound", "gone"));
        assertCondition(zero, Conditions.READY, "False", "ScaledToZeroWithoutAutoscaler", "No executor node runs, and the"
                + " autoscaler that starts one when jobs are due is not working (KedaNotInstalled): KEDA's CRDs are not"
                + " installed (as the last applied pass found it: the latest spec is not applied, see Degraded)");
        ec.getSpec().autoscaling = null;
        ec.setStatus(null);
    }

    @Test
    void theOperatorsOwnProblemWinsOverThePods() {
        var problem = new PodProblems.Problem("Unschedulable", "no node fits");
        ExecutorClusterStatus s = ClusterStatus.of(ec, sts(1, 1, 0, 1, "r1", "r1"),
                ClusterStatus.Findings.reconcileFailed("boom").withPods(Optional.of(problem)));
        assertCondition(s, Conditions.DEGRADED, "True", "ReconcileFailed", "boom");
        assertCondition(s, Conditions.READY, "False", "Unschedulable", "0 of 1 executor nodes ready; no node fits");
    }

    @Test
    void anUnchangedConditionKeepsItsTransitionTime() {
        ExecutorClusterStatus first = ClusterStatus.of(ec, sts(1, 1, 1, 1, "r1", "r1"), applied());
        String since = condition(first, Conditions.READY).getLastTransitionTime();
        ec.setStatus(first);
        ExecutorClusterStatus again = ClusterStatus.of(ec, sts(1, 1, 1, 1, "r1", "r1"), applied());
        assertThat(condition(again, Conditions.READY).getLastTransitionTime()).isEqualTo(since);
    }

    /** A condition someone else wrote without type or status (status is a subresource anyone allowed may patch) is dropped, not fatal. */
    @Test
    void aConditionWithoutTypeOrStatusDoesNotStopTheStatus() {
        ExecutorClusterStatus first = ClusterStatus.of(ec, sts(1, 1, 1, 1, "r1", "r1"), applied());
        var planted = new java.util.ArrayList<>(first.conditions);
        planted.add(new io.fabric8.kubernetes.api.model.ConditionBuilder().withReason("NoType").build());
        planted.add(new io.fabric8.kubernetes.api.model.ConditionBuilder().withType(Conditions.READY).withReason("NoStatus").build());
        planted.removeIf(c -> Conditions.DEGRADED.equals(c.getType()));
        planted.add(new io.fabric8.kubernetes.api.model.ConditionBuilder().withType(Conditions.DEGRADED).build());
        first.conditions = planted;
        ec.setStatus(first);
        ExecutorClusterStatus again = ClusterStatus.of(ec, sts(1, 1, 1, 1, "r1", "r1"), applied());
        assertCondition(again, Conditions.READY, "True", "NodesReady", "1 of 1 executor nodes ready");
        assertCondition(again, Conditions.DEGRADED, "False", "AsExpected", "The operator applied the latest spec");
        assertThat(again.conditions).extracting(Condition::getType).doesNotContainNull().doesNotHaveDuplicates();
    }

    /** A cluster without spec (a CRD older than the rule that requires it) gets a status naming the field. */
    @Test
    void aClusterWithoutSpecGetsAStatus() {
        ExecutorCluster bare = cluster();
        bare.setSpec(null);
        ExecutorClusterStatus s = ClusterStatus.of(bare, sts(0, 0, 0, 0, "r1", "r1"),
                ClusterStatus.Findings.blocked("an acceptable spec", "SpecRefused", "spec: required"));
        assertCondition(s, Conditions.DEGRADED, "True", "SpecRefused", "spec: required");
        assertCondition(s, Conditions.READY, "True", "ScaledToZero", "No executor node is wanted now");
    }

    private static ClusterStatus.Findings applied() {
        return ClusterStatus.Findings.applied(false, "Disabled", "spec.autoscaling is off");
    }

    private static ExecutorCluster cluster() {
        ExecutorCluster ec = Clusters.parse(Clusters.yaml("payments", ""));
        ec.getMetadata().setNamespace("team");
        ec.getMetadata().setGeneration(4L);
        return ec;
    }

    private static StatefulSet sts(int desired, int current, int ready, int updated, String currentRevision, String updateRevision) {
        return new StatefulSetBuilder()
                .withNewMetadata().withName("payments").withGeneration(7L).endMetadata()
                .withNewSpec().withReplicas(desired).endSpec()
                .withNewStatus().withObservedGeneration(7L).withReplicas(current).withReadyReplicas(ready)
                .withUpdatedReplicas(updated).withCurrentRevision(currentRevision).withUpdateRevision(updateRevision).endStatus()
                .build();
    }

    private static Condition condition(ExecutorClusterStatus s, String type) {
        return s.conditions.stream().filter(c -> c.getType().equals(type)).findFirst().orElseThrow();
    }

    private static void assertCondition(ExecutorClusterStatus s, String type, String status, String reason, String message) {
        Condition c = condition(s, type);
        assertThat(c.getStatus()).as(type + " status").isEqualTo(status);
        assertThat(c.getReason()).as(type + " reason").isEqualTo(reason);
        assertThat(c.getMessage()).as(type + " message").isEqualTo(message);
    }
}
