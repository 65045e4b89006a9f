package io.drover.operator.status;

import io.drover.contract.NodeProblem;
import io.drover.operator.figures.NodeReading;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why executor pods do not run, read from their status as the kubelet and the scheduler report
 * it, so that the ExecutorCluster's conditions carry the root cause instead of "0 of 2 ready":
 * the scheduler's message for an unschedulable pod, the image pull error, and for a crashing
 * executor its own last words. A node that cannot start writes "Reason: cause" to its
 * termination message (DatabaseAuthenticationFailed, DatabaseUnreachable, MigrationFailed, ...);
 * the container's terminationMessagePolicy FallbackToLogsOnError gives the last log lines for
 * any other crash. A node that runs but is not ready names why in its figures (DatabaseReadOnly,
 * DatabaseUnreachable, ...). Both use the words of {@link NodeProblem}, and only those are taken
 * as a reason. No log access is needed.
 */
public final class PodProblems {
    /**
     * A cause: a reason word (the condition's reason), a message naming the pod, and whether it
     * needs someone to act (Degraded), or may pass on its own (a database restarting or failing
     * over: Ready says why, Degraded and its Warning events stay out of it).
     */
    public record Problem(String reason, String message, boolean needsAction) {
        public Problem(String reason, String message) {
            this(reason, message, true);
        }
    }

    private static final Set<String> IMAGE = Set.of("ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull");
    private static final Set<String> CONFIG = Set.of("CreateContainerConfigError", "CreateContainerError", "RunContainerError");
    private static final Pattern REASON_LINE = Pattern.compile("^([A-Z][A-Za-z]+): (.+)$", Pattern.DOTALL);
    private static final int MAX_MESSAGE = 1024;
    /** A container that crashed this recently and is not ready again is still crashing. */
    static final java.time.Duration RECENT_CRASH = java.time.Duration.ofMinutes(10);

    private PodProblems() {
    }

    /**
     * The problem of the first pod (by name) that has one, noting how many other pods share
     * its reason; empty when no pod reports a problem (e.g. still starting).
     */
    public static Optional<Problem> find(List<Pod> pods) {
        return find(pods, Map.of());
    }

    /**
     * As {@link #find(List)}, and for a running executor that is not ready and has no problem in
     * its pod's status, the problem its figures name ({@link NodeReading#problem}: why it takes no
     * jobs, e.g. a database that takes only reads), by pod name.
     */
    public static Optional<Problem> find(List<Pod> pods, Map<String, NodeReading> readings) {
        List<Pod> sorted = new ArrayList<>(pods);
        sorted.sort(Comparator.comparing(p -> p.getMetadata().getName()));
        // A pod's own status first (a crash, an image, the scheduler): it outranks what a running
        // node says of its database, whichever pod comes first by name.
        return first(sorted, PodProblems::of)
                .or(() -> first(sorted, pod -> notReadyBecause(pod, readings.get(pod.getMetadata().getName()))));
    }

    private static Optional<Problem> first(List<Pod> sorted, java.util.function.Function<Pod, Optional<Problem>> problemOf) {
        Problem first = null;
        int same = 0;
        for (Pod pod : sorted) {
            Optional<Problem> p = problemOf.apply(pod);
            if (p.isEmpty()) {
                continue;
            }
            if (first == null) {
                first = p.get();
            } else if (first.reason().equals(p.get().reason())) {
                same++;
            }
        }
        if (first == null) {
            return Optional.empty();
        }
        String message = same == 0 ? first.message() : first.message() + " (and " + same + " more pod" + (same == 1 ? "" : "s") + ")";
        return Optional.of(new Problem(first.reason(), truncate(message), first.needsAction()));
    }

    static Optional<Problem> of(Pod pod) {
        String name = pod.getMetadata().getName();
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            // A pod being deleted (scale-down, roll) exits 143 on SIGTERM: not a crash. One still
            // there well past its grace period is: its kubelet does not confirm the kill.
            return stuckTerminating(pod);
        }
        if (pod.getStatus() == null) {
            return Optional.empty();
        }
        if (pod.getStatus().getConditions() != null) {
            for (PodCondition c : pod.getStatus().getConditions()) {
                if ("PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason())) {
                    return Optional.of(new Problem("Unschedulable", "pod " + name + " cannot be scheduled: " + oneLine(c.getMessage())));
                }
            }
        }
        if (pod.getStatus().getContainerStatuses() == null) {
            return Optional.empty();
        }
        for (ContainerStatus cs : pod.getStatus().getContainerStatuses()) {
            var waiting = cs.getState() == null ? null : cs.getState().getWaiting();
            String waitingReason = waiting == null ? null : waiting.getReason();
            if (waitingReason != null && (IMAGE.contains(waitingReason) || CONFIG.contains(waitingReason))) {
                return Optional.of(new Problem(waitingReason, "pod " + name + ": " + oneLine(waiting.getMessage())));
            }
            ContainerStateTerminated last = cs.getLastState() == null ? null : cs.getLastState().getTerminated();
            ContainerStateTerminated now = cs.getState() == null ? null : cs.getState().getTerminated();
            ContainerStateTerminated ended = now != null ? now : last;
            // Between two crashes the container runs again, not ready yet: still the same cause,
            // or Degraded would flap with every restart. A crash long ago is not today's cause.
            boolean restartedAfterRecentCrash = cs.getState() != null && cs.getState().getRunning() != null
                    && !Boolean.TRUE.equals(cs.getReady()) && last != null && nz(last.getExitCode()) != 0
                    && finishedWithin(last, RECENT_CRASH);
            boolean crashing = "CrashLoopBackOff".equals(waitingReason) || (now != null && nz(now.getExitCode()) != 0)
                    || restartedAfterRecentCrash;
            if (crashing && ended != null) {
                return Optional.of(crash(name, cs, ended));
            }
        }
        return Optional.empty();
    }

    /** A running pod that is not ready, whose executor names why ("Reason: message"). */
    static Optional<Problem> notReadyBecause(Pod pod, NodeReading reading) {
        if (reading == null || reading.problem() == null || pod.getStatus() == null
                || pod.getMetadata().getDeletionTimestamp() != null || pod.getStatus().getConditions() == null
                || pod.getStatus().getConditions().stream().noneMatch(c -> "Ready".equals(c.getType()) && "False".equals(c.getStatus()))) {
            return Optional.empty();
        }
        Matcher m = REASON_LINE.matcher(reading.problem().trim());
        Optional<NodeProblem> problem = m.matches() ? NodeProblem.whileRunning(m.group(1)) : Optional.empty();
        // Degraded (and its Warning events) only for what needs someone to act, not for what a
        // database restart or failover looks like for a minute.
        return problem.map(p -> new Problem(p.name(), "pod " + pod.getMetadata().getName() + " is not ready: "
                + oneLine(m.group(2)), !p.passesOnItsOwn()));
    }

    private static Problem crash(String pod, ContainerStatus cs, ContainerStateTerminated ended) {
        String restarts = " (exit code " + nz(ended.getExitCode()) + ", " + nz(cs.getRestartCount()) + " restarts)";
        if ("OOMKilled".equals(ended.getReason())) {
            return new Problem("OOMKilled", "pod " + pod + " was killed for exceeding its memory limit" + restarts
                    + ": raise resources.limits.memory, or find the job that needs so much (poison jobs are dead-lettered after maxCrashes)");
        }
        String words = ended.getMessage() == null ? "" : ended.getMessage().trim();
        Matcher m = REASON_LINE.matcher(words);
        if (m.matches() && NodeProblem.atStartup(m.group(1)).isPresent()) {
            return new Problem(m.group(1), "pod " + pod + ": " + oneLine(m.group(2)) + restarts);
        }
        String lastLines = words.isEmpty() ? "no termination message" : lastLine(words);
        return new Problem("CrashLoopBackOff", "pod " + pod + " keeps exiting" + restarts + ": " + lastLines);
    }

    /** The last non-empty line: with FallbackToLogsOnError the message is the log's tail. */
    private static String lastLine(String text) {
        String[] lines = text.split("\n");
        for (int i = lines.length - 1; i >= 0; i--) {
            if (!lines[i].isBlank()) {
                return oneLine(lines[i]);
            }
        }
        return "";
    }

    static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s+", " ").trim();
    }

    static String truncate(String s) {
        return s.length() <= MAX_MESSAGE ? s : s.substring(0, MAX_MESSAGE - 3) + "...";
    }

    /**
     * A pod still there {@link #STUCK_TERMINATING} past the end of its grace period (its deletion
     * timestamp): its node is down or gone (the kubelet never confirms the kill), and the
     * StatefulSet starts no pod of that ordinal until it is gone, so a node is missing, or a roll
     * stalls, with no other cause shown.
     */
    private static Optional<Problem> stuckTerminating(Pod pod) {
        java.time.Instant graceEnded;
        try {
            graceEnded = java.time.Instant.parse(pod.getMetadata().getDeletionTimestamp());
        } catch (java.time.format.DateTimeParseException e) {
            return Optional.empty();
        }
        java.time.Duration past = java.time.Duration.between(graceEnded, java.time.Instant.now());
        if (past.compareTo(STUCK_TERMINATING) < 0) {
            return Optional.empty();
        }
        String name = pod.getMetadata().getName();
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        return Optional.of(new Problem("PodStuckTerminating", "pod " + name + " is still terminating " + past.toMinutes()
                + " min after its grace period ended" + (node == null ? "" : ", on node " + node) + ": the node is down or gone,"
                + " and no pod replaces it until it is removed (once the node is gone for good: kubectl delete pod " + name
                + " --force --grace-period=0)"));
    }

    /** How long past its grace period a terminating pod counts as stuck: a kubelet confirms within seconds. */
    static final java.time.Duration STUCK_TERMINATING = java.time.Duration.ofMinutes(2);

    private static boolean finishedWithin(ContainerStateTerminated t, java.time.Duration d) {
        try {
            return t.getFinishedAt() != null
                    && java.time.Instant.parse(t.getFinishedAt()).isAfter(java.time.Instant.now().minus(d));
        } catch (java.time.format.DateTimeParseException e) {
            return false;
        }
    }

    private static int nz(Integer i) {
        return i == null ? 0 : i;
    }
}
