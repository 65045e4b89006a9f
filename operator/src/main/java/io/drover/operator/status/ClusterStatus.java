package io.drover.operator.status;

import io.drover.operator.autoscaling.Autoscaler;
import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.api.v1alpha1.ExecutorClusterStatus;
import io.drover.operator.api.v1alpha1.FleetStatus;
import io.drover.operator.figures.Bottleneck;
import io.drover.operator.resources.Labels;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;

import java.util.Objects;
import java.util.Set;

/**
 * Derives an ExecutorCluster's status from its StatefulSet and what the reconciliation found.
 * Ready: every wanted executor is ready (a cluster scaled to zero is ready: it wakes on demand).
 * Progressing: a rollout or a scale is under way. Degraded: the operator cannot do its job
 * or its executor pods cannot run (the reason names what is wrong: the operator's own finding,
 * or the pods' root cause from {@link PodProblems}). Autoscaling: whether KEDA scales the cluster, and if not why.
 */
public final class ClusterStatus {
    /** Autoscaling's reason on a blocked pass with no applied pass before it. */
    static final String BLOCKED = "Blocked";
    /** Autoscaling's reason on a failed pass with no applied pass before it. */
    static final String RECONCILE_FAILED_AUTOSCALING = "Unknown";
    /** Said of an autoscaling condition carried over a pass that changed nothing. */
    static final String AS_BEFORE = " (as the last applied pass found it: the latest spec is not applied, see Degraded)";
    /** Progressing's reason for a roll or scale held up by a pod not ready past the progress deadline ({@link RollStall}). */
    public static final String PROGRESS_DEADLINE_EXCEEDED = "ProgressDeadlineExceeded";

    private ClusterStatus() {
    }

    /**
     * What the reconciliation learned, for the conditions: whether KEDA scales the cluster (and
     * why not), the operator's own problem if it had one, the pods' root cause, the live figures
     * and the bottleneck. Made through the factories below, which say what happened.
     */
    public static final class Findings {
        /** Whether this pass wrote the latest spec to the StatefulSet (not blocked, not failed). */
        private final boolean specApplied;
        private final boolean autoscalingActive;
        private final String autoscalingReason;
        private final String autoscalingMessage;
        private final String problemReason;
        private final String problemMessage;
        private final PodProblems.Problem podProblem;
        private final FleetStatus fleet;
        private final Bottleneck.Diagnosis bottleneck;
        private final RollStall.Stall stall;

        private Findings(boolean specApplied, boolean autoscalingActive, String autoscalingReason, String autoscalingMessage,
                         String problemReason, String problemMessage, PodProblems.Problem podProblem,
                         FleetStatus fleet, Bottleneck.Diagnosis bottleneck, RollStall.Stall stall) {
            this.specApplied = specApplied;
            this.autoscalingActive = autoscalingActive;
            this.autoscalingReason = autoscalingReason;
            this.autoscalingMessage = autoscalingMessage;
            this.problemReason = problemReason;
            this.problemMessage = problemMessage;
            this.podProblem = podProblem;
            this.fleet = fleet;
            this.bottleneck = bottleneck;
            this.stall = stall;
        }

        /**
         * The spec was applied; the autoscaling condition as the autoscaler reports it. KEDA's
         * objects refused (the rest applied), another HPA beside KEDA's, or KEDA's HPA unable to
         * scale, is a problem someone must act on: Degraded too.
         */
        public static Findings applied(boolean autoscalingActive, String autoscalingReason, String autoscalingMessage) {
            boolean refused = Autoscaler.SCALED_OBJECT_REFUSED.equals(autoscalingReason)
                    || Autoscaler.SCALED_OBJECT_NOT_WRITTEN.equals(autoscalingReason)
                    || Autoscaler.SCALED_OBJECT_NOT_REMOVED.equals(autoscalingReason)
                    || Autoscaler.CONFLICTING_AUTOSCALER.equals(autoscalingReason)
                    || Autoscaler.KEDA_HPA_NOT_SCALING.equals(autoscalingReason);
            return new Findings(true, autoscalingActive, autoscalingReason, autoscalingMessage, refused ? autoscalingReason : null,
                    refused ? autoscalingMessage : null, null, null, null, null);
        }

        /**
         * The operator changed nothing that runs, and waits for the user: {@code reason} and
         * {@code message} go to Degraded; autoscaling is reported Blocked, "Waiting for {@code waitingFor}".
         */
        public static Findings blocked(String waitingFor, String reason, String message) {
            return new Findings(false, false, BLOCKED, "Waiting for " + waitingFor, reason, message, null, null, null, null);
        }

        /** The reconciliation failed unexpectedly (Degraded ReconcileFailed with the error). */
        public static Findings reconcileFailed(String error) {
            return new Findings(false, false, RECONCILE_FAILED_AUTOSCALING, "Reconciliation failed before autoscaling was checked",
                    "ReconcileFailed", error, null, null, null, null);
        }

        /** What the executor pods report (PodProblems): the root cause when nodes are not ready. */
        public Findings withPods(java.util.Optional<PodProblems.Problem> problem) {
            return new Findings(specApplied, autoscalingActive, autoscalingReason, autoscalingMessage, problemReason, problemMessage,
                    problem.orElse(null), fleet, bottleneck, stall);
        }

        /** A wanted pod not ready for the progress deadline ({@link RollStall}): a roll or scale under way has stalled. */
        public Findings withStall(java.util.Optional<RollStall.Stall> stalled) {
            return new Findings(specApplied, autoscalingActive, autoscalingReason, autoscalingMessage, problemReason, problemMessage,
                    podProblem, fleet, bottleneck, stalled.orElse(null));
        }

        /** The fleet's live figures and the bottleneck they show. */
        public Findings withFigures(FleetStatus figures, Bottleneck.Diagnosis diagnosis) {
            return new Findings(specApplied, autoscalingActive, autoscalingReason, autoscalingMessage, problemReason, problemMessage,
                    podProblem, figures, diagnosis, stall);
        }

        public boolean specApplied() {
            return specApplied;
        }

        public boolean autoscalingActive() {
            return autoscalingActive;
        }

        public String autoscalingReason() {
            return autoscalingReason;
        }

        public String autoscalingMessage() {
            return autoscalingMessage;
        }

        /** The operator's own problem (Degraded's reason), or null. */
        public String problemReason() {
            return problemReason;
        }

        public String problemMessage() {
            return problemMessage;
        }

        public PodProblems.Problem podProblem() {
            return podProblem;
        }

        public FleetStatus fleet() {
            return fleet;
        }

        public Bottleneck.Diagnosis bottleneck() {
            return bottleneck;
        }

        public RollStall.Stall stall() {
            return stall;
        }
    }

    public static ExecutorClusterStatus of(ExecutorCluster ec, StatefulSet sts, Findings findings) {
        long generation = ec.getMetadata().getGeneration() == null ? 0 : ec.getMetadata().getGeneration();
        ExecutorClusterStatus previous = ec.getStatus();
        Conditions conditions = new Conditions(previous == null ? null : previous.conditions, generation);
        Autoscaling autoscaling = Autoscaling.of(previous, findings);
        ExecutorClusterStatus s = new ExecutorClusterStatus();
        s.observedGeneration = generation;
        s.selector = Labels.selectorString(ec);

        if (sts == null) {
            s.replicas = 0;
            s.readyReplicas = 0;
            s.updatedReplicas = 0;
            s.desiredReplicas = 0;
            conditions.set(Conditions.READY, false, "NotCreated", "The executor StatefulSet does not exist yet");
            conditions.set(Conditions.PROGRESSING, false, "NotCreated", "Nothing to roll out until the StatefulSet exists");
        } else {
            StatefulSetStatus st = sts.getStatus() == null ? new StatefulSetStatus() : sts.getStatus();
            int desired = nz(sts.getSpec().getReplicas());
            int ready = nz(st.getReadyReplicas());
            int current = nz(st.getReplicas());
            int updated = nz(st.getUpdatedReplicas());
            s.desiredReplicas = desired;
            s.replicas = current;
            s.readyReplicas = ready;
            s.updatedReplicas = updated;

            boolean stsSeen = st.getObservedGeneration() != null && st.getObservedGeneration() >= nz(sts.getMetadata().getGeneration());
            boolean rolling = stsSeen && st.getUpdateRevision() != null && !Objects.equals(st.getUpdateRevision(), st.getCurrentRevision());
            if (!findings.specApplied() && notAppliedBefore(previous, generation)) {
                // Blocked or failed before the StatefulSet was written: what runs is an earlier
                // spec, however settled (UpToDate here told a `kubectl wait` the change was out).
                conditions.set(Conditions.PROGRESSING, false, "SpecNotApplied", "The latest spec (generation " + generation
                        + ") is not applied: " + findings.problemReason() + " (see Degraded); the executors run the spec"
                        + " applied before");
            } else if (!stsSeen) {
                conditions.set(Conditions.PROGRESSING, true, "Applying", "The StatefulSet controller has not yet seen the latest change");
            } else if ((rolling || updated < Math.min(current, desired) || current != desired) && findings.stall() != null) {
                // The StatefulSet controller waits for each new pod to be ready before the next:
                // one that never is holds the rest up for good.
                RollStall.Stall stall = findings.stall();
                conditions.set(Conditions.PROGRESSING, false, PROGRESS_DEADLINE_EXCEEDED, (current != desired && !rolling
                        ? "Scaling from " + current + " to " + desired : updated + " of " + desired + " executor nodes run the"
                        + " current configuration") + ", and pod " + stall.pod() + " has not been ready since " + stall.since()
                        + ", past the operator's progressDeadline: the StatefulSet controller waits for it before going on"
                        + (findings.podProblem() != null ? " (" + findings.podProblem().reason() + ": " + findings.podProblem().message() + ")"
                        : "; Ready says why"));
            } else if (rolling || updated < Math.min(current, desired)) {
                // Not updated < desired: the StatefulSet counts updated pods among those that exist,
                // so a scale-up from 2 to 4 (2 updated) read as a roll.
                conditions.set(Conditions.PROGRESSING, true, "RollingUpdate",
                        updated + " of " + desired + " executor nodes run the current configuration");
            } else if (current != desired) {
                conditions.set(Conditions.PROGRESSING, true, "Scaling", "Scaling from " + current + " to " + desired + " executor nodes");
            } else {
                conditions.set(Conditions.PROGRESSING, false, "UpToDate", "All " + desired + " executor nodes run the current configuration");
            }
            if (desired == 0 && autoscalerDown(ec, autoscaling)) {
                // Nothing runs, and what would start a node for the first due job cannot: due jobs
                // would wait for good behind a Ready cluster.
                conditions.set(Conditions.READY, false, "ScaledToZeroWithoutAutoscaler", "No executor node runs, and"
                        + " the autoscaler that starts one when jobs are due is not working (" + autoscaling.reason()
                        + "): " + autoscaling.message());
            } else if (desired == 0) {
                conditions.set(Conditions.READY, true, "ScaledToZero", "No executor node is wanted now");
            } else if (ready >= desired) {
                conditions.set(Conditions.READY, true, "NodesReady", ready + " of " + desired + " executor nodes ready");
            } else if (findings.podProblem() != null) {
                // The root cause, not the symptom: why the nodes that are not ready are not.
                conditions.set(Conditions.READY, false, findings.podProblem().reason(),
                        ready + " of " + desired + " executor nodes ready; " + findings.podProblem().message());
            } else {
                conditions.set(Conditions.READY, false, "NodesNotReady", ready + " of " + desired + " executor nodes ready");
            }
        }
        if (findings.problemReason() != null) {
            conditions.set(Conditions.DEGRADED, true, findings.problemReason(), findings.problemMessage());
        } else if (findings.podProblem() != null && findings.podProblem().needsAction()) {
            // Pods that cannot be scheduled, pull their image or start need someone to act; a
            // node waiting out a database restart does not (Ready says why).
            conditions.set(Conditions.DEGRADED, true, findings.podProblem().reason(), findings.podProblem().message());
        } else if (Autoscaler.SCALED_BY_ANOTHER_AUTOSCALER.equals(findings.autoscalingReason())) {
            // Someone's own HPA scales the StatefulSet: a choice, not a fault, but not all of the spec.
            conditions.set(Conditions.DEGRADED, false, "AsExpected", "The operator applied the latest spec except"
                    + " spec.replicas, which another autoscaler decides (see the Autoscaling condition)");
        } else {
            conditions.set(Conditions.DEGRADED, false, "AsExpected", "The operator applied the latest spec");
        }
        conditions.set(Conditions.AUTOSCALING, autoscaling.status(), autoscaling.reason(), autoscaling.message());
        Bottleneck.Diagnosis diagnosis = findings.bottleneck() != null ? findings.bottleneck()
                : new Bottleneck.Diagnosis("Unknown", "NoFigures", "No executor node answered with its figures");
        conditions.set(Conditions.BOTTLENECK, diagnosis.status(), diagnosis.reason(), diagnosis.message());
        s.fleet = findings.fleet();
        s.nodes = s.readyReplicas + "/" + s.desiredReplicas;
        s.conditions = conditions.list();
        return s;
    }

    /**
     * Whether this generation was never applied: the last status was of an earlier one, or said
     * so already. A pass blocked (a Secret gone a moment) after an earlier pass applied this
     * generation leaves the executors on it, not on an earlier spec.
     */
    private static boolean notAppliedBefore(ExecutorClusterStatus previous, long generation) {
        if (previous == null || previous.observedGeneration == null || previous.observedGeneration < generation) {
            return true;
        }
        var progressing = Conditions.find(previous.conditions, Conditions.PROGRESSING);
        return progressing != null && "SpecNotApplied".equals(progressing.getReason());
    }

    /** Autoscaling is asked for, and KEDA is missing or its ScaledObject is not ready (Autoscaler's outcomes). */
    private static boolean autoscalerDown(ExecutorCluster ec, Autoscaling autoscaling) {
        var a = ec.getSpec() == null ? null : ec.getSpec().autoscaling;
        return a != null && Boolean.TRUE.equals(a.enabled) && !"True".equals(autoscaling.status())
                && (Autoscaler.KEDA_NOT_INSTALLED.equals(autoscaling.reason())
                || Autoscaler.SCALED_OBJECT_NOT_READY.equals(autoscaling.reason())
                || Autoscaler.SCALED_OBJECT_REFUSED.equals(autoscaling.reason())
                || Autoscaler.SCALED_OBJECT_NOT_WRITTEN.equals(autoscaling.reason())
                || Autoscaler.SCALED_OBJECT_PAUSED.equals(autoscaling.reason())
                || Autoscaler.CONFLICTING_AUTOSCALER.equals(autoscaling.reason()));
    }

    /**
     * The Autoscaling condition this pass reports: what it found; or, for a blocked or failed pass
     * after an applied one, what the applied one found (the pass changed nothing, the autoscaler's
     * objects included: it said Blocked while KEDA went on scaling the cluster), saying so. Ready
     * reads the same (ScaledToZeroWithoutAutoscaler).
     */
    private record Autoscaling(String status, String reason, String message) {
        static Autoscaling of(ExecutorClusterStatus previous, Findings findings) {
            Condition before = previous == null ? null : Conditions.find(previous.conditions, Conditions.AUTOSCALING);
            if (!findings.specApplied() && before != null && before.getReason() != null
                    && !Set.of(BLOCKED, RECONCILE_FAILED_AUTOSCALING).contains(before.getReason())) {
                String message = before.getMessage() == null ? "" : before.getMessage();
                return new Autoscaling(before.getStatus(), before.getReason(),
                        message.endsWith(AS_BEFORE) ? message : message + AS_BEFORE);
            }
            return new Autoscaling(findings.autoscalingActive() ? "True" : "False", findings.autoscalingReason(),
                    findings.autoscalingMessage());
        }
    }

    private static int nz(Integer i) {
        return i == null ? 0 : i;
    }

    private static long nz(Long l) {
        return l == null ? 0 : l;
    }
}
