package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.acquire.LockMode;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.NodeProcess;
import io.drover.executor.testing.RecordingHandler;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Three node processes drain 10,000 due jobs: each runs exactly once, none is left, in every lock mode. */
class MultiNodeDrainTest {
    private static final int JOBS = 10_000;
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void threeNodesExecuteEveryJobExactlyOnce(LockMode mode) throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);

        List<NodeProcess> nodes = new ArrayList<>();
        List<String> stats = new ArrayList<>();
        try {
            for (int i = 1; i <= 3; i++) {
                nodes.add(NodeProcess.start("node-" + i, schema, Map.of(
                        "lockMode", mode.name(), "threads", "4", "queueSize", "256", "acquirePageSize", "128")));
            }
            for (NodeProcess node : nodes) {
                node.awaitReady();
            }
            // Enqueued once all three are ready, so that they contend from the first job: enqueued
            // before, the node that got ready first once drained all 10,000 before the others were
            // (the pre-check at 9957280, Global).
            jobs.enqueue(JOBS, RecordingHandler.TYPE, "", 3);
            Jobs.await("all jobs executed (" + mode + ")", Duration.ofMinutes(3), () -> jobs.jobsLeft() == 0);
            for (NodeProcess node : nodes) {
                stats.add(mode + " " + node.name() + " " + node.terminate());
            }
        } finally {
            for (NodeProcess node : nodes) {
                node.close();
            }
        }

        assertThat(jobs.executions()).as("executions").isEqualTo(JOBS);
        assertThat(jobs.distinctExecuted()).as("distinct jobs executed").isEqualTo(JOBS);
        assertThat(jobs.deadLetters()).as("dead letters").isZero();
        assertThat(jobs.count("select count(distinct node) from {s}.test_execution"))
                .as("nodes that executed jobs").isGreaterThan(1);
        stats.forEach(System.out::println);
    }
}
