package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.NodeProcess;
import io.drover.executor.testing.RecordingHandler;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** SIGTERM: queued jobs go back to the fleet at once, running ones finish, nothing runs twice. */
class GracefulShutdownTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @Test
    void queuedJobsAreUnlockedAndTakenByAnotherNodeImmediately() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(600, RecordingHandler.TYPE, "50", 3);
        // lockExpiry of 10 min: if the queued jobs were not released they would sit for minutes.
        try (NodeProcess leaving = NodeProcess.start("leaving", schema,
                Map.of("lockExpiry", "PT10M", "threads", "1", "queueSize", "500", "acquirePageSize", "500"))) {
            leaving.awaitReady();
            Jobs.await("the leaving node queued a full page", Duration.ofSeconds(60),
                    () -> jobs.count("select count(*) from {s}.job where locked_by like 'leaving:%'") >= 400);

            try (NodeProcess staying = NodeProcess.start("staying", schema,
                    Map.of("lockExpiry", "PT10M", "threads", "8", "queueSize", "100", "acquirePageSize", "100"))) {
                staying.awaitReady();
                leaving.terminate();
                assertThat(jobs.count("select count(*) from {s}.job where locked_by like 'leaving:%'"))
                        .as("jobs still locked by the node that left").isZero();
                Jobs.await("all jobs executed", Duration.ofMinutes(2), () -> jobs.jobsLeft() == 0);
                staying.terminate();
            }
        }
        assertThat(jobs.executions()).as("executions (graceful: no duplicates)").isEqualTo(600);
        assertThat(jobs.distinctExecuted()).isEqualTo(600);
        assertThat(jobs.count("select count(*) from {s}.test_execution where node = 'staying'"))
                .as("jobs handed over").isGreaterThan(300);
    }
}
