package io.drover.operator.status;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

import io.drover.operator.figures.NodeReading;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Pod statuses as the kubelet and scheduler write them, and the root cause each one yields. */
class PodProblemsTest {

    @Test
    void aPodTheSchedulerCannotPlaceCarriesTheSchedulersMessage() {
        Pod pod = pod("jobs-0").editStatus().addNewCondition().withType("PodScheduled").withStatus("False")
                .withReason("Unschedulable").withMessage("0/2 nodes are available: 1 Insufficient cpu,\n 1 node(s) had untolerated taint.")
                .endCondition().endStatus().build();
        assertThat(PodProblems.find(List.of(pod))).hasValueSatisfying(p -> {
            assertThat(p.reason()).isEqualTo("Unschedulable");
            assertThat(p.message()).isEqualTo("pod jobs-0 cannot be scheduled: 0/2 nodes are available: 1 Insufficient cpu,"
                    + " 1 node(s) had untolerated taint.");
        });
    }

    @Test
    void anImageThatCannotBePulledIsNamed() {
        Pod pod = withContainer(pod("jobs-0"), new ContainerStatusBuilder().withName("executor").withNewState().withNewWaiting()
                .withReason("ImagePullBackOff").withMessage("Back-off pulling image \"registry.example.com/drover:9\"")
                .endWaiting().endState().build());
        assertThat(PodProblems.find(List.of(pod))).hasValueSatisfying(p -> {
            assertThat(p.reason()).isEqualTo("ImagePullBackOff");
            assertThat(p.message()).contains("registry.example.com/drover:9");
        });
    }

    @Test
    void aCrashingExecutorIsReportedByItsOwnLastWords() {
        Pod pod = withContainer(pod("jobs-1"), crashLooping(1, null,
                "DatabaseAuthenticationFailed: Migrating the schema drover failed: FATAL: password authentication failed"
                        + " for user \"drover\" (SQLState 28P01)"));
        assertThat(PodProblems.find(List.of(pod))).hasValueSatisfying(p -> {
            assertThat(p.reason()).isEqualTo("DatabaseAuthenticationFailed");
            assertThat(p.message()).isEqualTo("pod jobs-1: Migrating the schema drover failed: FATAL: password authentication"
                    + " failed for user \"drover\" (SQLState 28P01) (exit code 1, 3 restarts)");
        });
    }

    @Test
    void everyWordANodeThatCannotStartWritesIsTakenAndNoOther() {
        // A node that gave up at start-up on a read-only database says so in the running node's word.
        Pod pod = withContainer(pod("jobs-0"), crashLooping(1, null, "DatabaseReadOnly: Migrating the schema drover"
                + " still failing after startupTimeout PT5M: cannot execute CREATE TABLE in a read-only transaction (SQLState 25006)"));
        assertThat(PodProblems.find(List.of(pod))).hasValueSatisfying(p -> assertThat(p.reason()).isEqualTo("DatabaseReadOnly"));
        for (String word : List.of("DatabaseAuthenticationFailed", "DatabaseNotFound", "DatabasePermissionDenied",
                "DatabaseReadOnly", "DatabaseUnreachable", "DatabaseOutOfResources", "DatabaseTimeout", "MigrationFailed",
                "StartupFailed")) {
            Pod crashed = withContainer(pod("jobs-0"), crashLooping(1, null, word + ": cause"));
            assertThat(PodProblems.find(List.of(crashed))).hasValueSatisfying(p -> assertThat(p.reason()).isEqualTo(word));
        }
        // Words only a running node writes: a log tail cut to start with one is not a start-up's reason.
        for (String word : List.of("DatabaseError", "ExecutorError")) {
            Pod crashed = withContainer(pod("jobs-0"), crashLooping(1, null, word + ": cause"));
            assertThat(PodProblems.find(List.of(crashed))).hasValueSatisfying(p -> assertThat(p.reason()).isEqualTo("CrashLoopBackOff"));
        }
        // And a running node's figures never carry a start-up's word.
        assertThat(PodProblems.find(List.of(running("jobs-0", false)), Map.of("jobs-0", reading("MigrationFailed: x")))).isEmpty();
    }

    @Test
    void anyOtherCrashShowsTheLastLogLine() {
        Pod pod = withContainer(pod("jobs-0"), crashLooping(1, "Error",
                "2026-11-22 10:00:00 INFO starting\nException in thread \"main\" java.lang.NoClassDefFoundError: x\n\n"));
        assertThat(PodProblems.find(List.of(pod))).hasValueSatisfying(p -> {
            assertThat(p.reason()).isEqualTo("CrashLoopBackOff");
            assertThat(p.message()).isEqualTo("pod jobs-0 keeps exiting (exit code 1, 3 restarts): Exception in thread \"main\""
                    + " java.lang.NoClassDefFoundError: x");
        });
        // A line that looks like a reason but is not one of the executor's is not taken for one.
        Pod other = withContainer(pod("jobs-0"), crashLooping(2, "Error", "Caused: something"));
        assertThat(PodProblems.find(List.of(other))).hasValueSatisfying(p -> assertThat(p.reason()).isEqualTo("CrashLoopBackOff"));
    }

    @Test
    void betweenTwoCrashesTheCauseStays() {
        Pod restarted = withContainer(pod("jobs-0"), new ContainerStatusBuilder().withName("executor").withReady(false)
                .withRestartCount(1).withNewState().withNewRunning().endRunning().endState()
                .withNewLastState().withNewTerminated().withExitCode(1).withFinishedAt(java.time.Instant.now().minusSeconds(5).toString())
                .withMessage("DatabaseAuthenticationFailed: Migrating the schema drover failed: FATAL: password authentication failed")
                .endTerminated().endLastState().build());
        assertThat(PodProblems.find(List.of(restarted))).hasValueSatisfying(p -> assertThat(p.reason()).isEqualTo("DatabaseAuthenticationFailed"));
        Pod longAgo = withContainer(pod("jobs-0"), new ContainerStatusBuilder().withName("executor").withReady(false)
                .withRestartCount(1).withNewState().withNewRunning().endRunning().endState()
                .withNewLastState().withNewTerminated().withExitCode(137).withReason("OOMKilled")
                .withFinishedAt(java.time.Instant.now().minus(java.time.Duration.ofHours(2)).toString())
                .endTerminated().endLastState().build());
        assertThat(PodProblems.find(List.of(longAgo))).as("a crash two hours ago is not why it is not ready now").isEmpty();
    }

    @Test
    void anOomKillSaysSo() {
        Pod pod = withContainer(pod("jobs-0"), crashLooping(137, "OOMKilled", null));
        assertThat(PodProblems.find(List.of(pod))).hasValueSatisfying(p -> {
            assertThat(p.reason()).isEqualTo("OOMKilled");
            assertThat(p.message()).startsWith("pod jobs-0 was killed for exceeding its memory limit (exit code 137, 3 restarts)");
        });
    }

    @Test
    void healthyStartingOrOnceRestartedPodsHaveNoProblem() {
        Pod running = withContainer(pod("jobs-0"), new ContainerStatusBuilder().withName("executor").withReady(true)
                .withRestartCount(1).withNewState().withNewRunning().endRunning().endState()
                .withNewLastState().withNewTerminated().withExitCode(1).withMessage("DatabaseUnreachable: gone").endTerminated().endLastState()
                .build());
        Pod starting = withContainer(pod("jobs-1"), new ContainerStatusBuilder().withName("executor").withNewState().withNewWaiting()
                .withReason("ContainerCreating").endWaiting().endState().build());
        Pod pending = pod("jobs-2").build();
        assertThat(PodProblems.find(List.of(running, starting, pending))).isEmpty();
    }

    @Test
    void theFirstPodSpeaksAndTheOthersWithTheSameCauseAreCounted() {
        String words = "DatabaseUnreachable: Migrating the schema drover still failing after startupTimeout PT5M: Connection refused";
        List<Pod> pods = List.of(withContainer(pod("jobs-2"), crashLooping(1, null, words)),
                withContainer(pod("jobs-0"), crashLooping(1, null, words)),
                withContainer(pod("jobs-1"), crashLooping(1, null, words)));
        assertThat(PodProblems.find(pods)).hasValueSatisfying(p -> {
            assertThat(p.reason()).isEqualTo("DatabaseUnreachable");
            assertThat(p.message()).startsWith("pod jobs-0: ").endsWith("(and 2 more pods)");
        });
    }

    /**
     * A running executor that is not ready names why in its figures (here: a database that takes
     * only reads). Only a known reason is taken, only for a pod that is not ready.
     */
    @Test
    void aRunningExecutorThatIsNotReadyIsReportedByWhatItsFiguresName() {
        String problem = "DatabaseReadOnly: the database takes only reads (SQLState 25006): database.host must name the primary";
        List<Pod> pods = List.of(running("jobs-0", false), running("jobs-1", false), running("jobs-2", true));
        Map<String, NodeReading> readings = Map.of("jobs-0", reading(problem), "jobs-1", reading(problem),
                "jobs-2", reading(problem));
        assertThat(PodProblems.find(pods, readings)).hasValueSatisfying(p -> {
            assertThat(p.reason()).isEqualTo("DatabaseReadOnly");
            assertThat(p.needsAction()).as("a replica as host does not pass on its own").isTrue();
            assertThat(p.message()).isEqualTo("pod jobs-0 is not ready: the database takes only reads (SQLState 25006):"
                    + " database.host must name the primary (and 1 more pod)");
        });
        assertThat(PodProblems.find(List.of(running("jobs-2", true)), readings)).as("a ready pod").isEmpty();
        assertThat(PodProblems.find(List.of(running("jobs-0", false)), Map.of("jobs-0", reading("Planted: anything"))))
                .as("a reason no executor names").isEmpty();
        assertThat(PodProblems.find(List.of(running("jobs-0", false)), Map.of("jobs-0", reading(null)))).isEmpty();

        // A database restarting: Ready says why, nothing to act on (Degraded stays out of it).
        assertThat(PodProblems.find(List.of(running("jobs-0", false)), Map.of("jobs-0",
                reading("DatabaseUnreachable: the database cannot be reached or ended the session (SQLState 57P01)"))))
                .hasValueSatisfying(p -> assertThat(p.needsAction()).isFalse());
        // A pod's own status outranks a node's word on its database, whichever comes first by name.
        Pod crashing = withContainer(pod("jobs-9"), crashLooping(1, null, "StartupFailed: the handler jar is missing"));
        assertThat(PodProblems.find(List.of(running("jobs-0", false), crashing), readings))
                .hasValueSatisfying(p -> assertThat(p.message()).startsWith("pod jobs-9"));
    }

    /**
     * A pod whose node went away stays Terminating (no kubelet confirms its end), and the
     * StatefulSet starts no pod of its ordinal meanwhile: named, past its grace period, with the
     * way out. One within its grace period, or just past it, is a stop in progress.
     */
    @Test
    void aPodStuckTerminatingLongPastItsGracePeriodIsNamed() {
        Pod stopping = running("jobs-2", false);
        stopping.getMetadata().setDeletionTimestamp(java.time.Instant.now().plusSeconds(20).toString());
        assertThat(PodProblems.of(stopping)).isEmpty();
        stopping.getMetadata().setDeletionTimestamp(java.time.Instant.now().minusSeconds(30).toString());
        assertThat(PodProblems.of(stopping)).as("just past its grace period").isEmpty();

        Pod stuck = running("jobs-2", false);
        stuck.setSpec(new io.fabric8.kubernetes.api.model.PodSpecBuilder().withNodeName("ip-10-0-3-7").build());
        stuck.getMetadata().setDeletionTimestamp(java.time.Instant.now().minus(java.time.Duration.ofMinutes(9)).toString());
        assertThat(PodProblems.find(List.of(running("jobs-0", true), stuck))).hasValueSatisfying(p -> {
            assertThat(p.reason()).isEqualTo("PodStuckTerminating");
            assertThat(p.message()).startsWith("pod jobs-2 is still terminating 9 min after its grace period ended, on node"
                    + " ip-10-0-3-7").endsWith("kubectl delete pod jobs-2 --force --grace-period=0)");
            assertThat(p.needsAction()).isTrue();
        });
    }

    private static Pod running(String name, boolean ready) {
        return pod(name).editStatus().withPhase("Running").addNewCondition().withType("Ready")
                .withStatus(ready ? "True" : "False").endCondition().endStatus().build();
    }

    private static NodeReading reading(String problem) {
        return new NodeReading("n", "SkipLocked", 8, 0, 1024, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                problem);
    }

    private static PodBuilder pod(String name) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewStatus().withPhase("Pending").endStatus();
    }

    private static Pod withContainer(PodBuilder pod, io.fabric8.kubernetes.api.model.ContainerStatus status) {
        return pod.editStatus().withPhase("Running").withContainerStatuses(status).endStatus().build();
    }

    private static io.fabric8.kubernetes.api.model.ContainerStatus crashLooping(int exitCode, String reason, String message) {
        return new ContainerStatusBuilder().withName("executor").withRestartCount(3).withReady(false)
                .withNewState().withNewWaiting().withReason("CrashLoopBackOff").withMessage("back-off 40s restarting failed container")
                .endWaiting().endState()
                .withNewLastState().withNewTerminated().withExitCode(exitCode).withReason(reason).withMessage(message)
                .endTerminated().endLastState().build();
    }
}
