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
        assertThat(jobs.count("select count(*) from {s}.test_execution where finished_at is null"))
                .as("runs cut short (the leaving node's running job finishes)").isZero();
        assertThat(jobs.count("select count(*) from {s}.test_execution where node = 'staying'"))
                .as("jobs handed over").isGreaterThan(300);
    }

    /**
     * Past its shutdownGracePeriod a stopping node takes at most ExecutorEngine.AFTER_GRACE (7 s)
     * plus a moment, within the 10 s the CRD keeps before the kubelet's kill (18 s before): here handlers that
     * ignore the interrupt (a second each to stop, where it was a second apiece) and a database
     * slow to take the last outcomes (20 s per write; the node gave them 10 s, past the kill).
     */
    @Test
    void aStoppingNodeEndsWithinTheTimeItHasPastItsGracePeriod() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.execute("create function {s}.slow_delete() returns trigger language plpgsql as $$"
                + " begin perform pg_sleep(20); return null; end $$");
        jobs.execute("create trigger slow_delete before delete on {s}.job for each statement execute function {s}.slow_delete()");
        EngineReliabilityTest.Stubborn stubborn = new EngineReliabilityTest.Stubborn();
        jobs.enqueue(4, "stubborn", "", 1);
        jobs.enqueue(1, "quick", "", 1);
        java.util.concurrent.CountDownLatch quickRan = new java.util.concurrent.CountDownLatch(1);
        var quick = io.drover.executor.testing.Handlers.of("quick", job -> quickRan.countDown());
        ExecutorEngine engine = io.drover.executor.testing.TestNode.start(db, schema, b -> b.threads(5)
                .shutdownGracePeriod(Duration.ofSeconds(1)), java.util.List.of(stubborn, quick));
        try {
            Jobs.await("every job started", Duration.ofSeconds(30), () -> stubborn.entered.get() == 4 && quickRan.getCount() == 0);
            Thread.sleep(300); // the quick one's outcome is in its (slow) write
            long start = System.nanoTime();
            engine.close();
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            // The kubelet's kill comes 10 s past the grace period at the soonest (the CRD's rule).
            assertThat(took).as("shutdownGracePeriod 1 s, then at most %s and a moment", ExecutorEngine.AFTER_GRACE)
                    .isLessThan(Duration.ofSeconds(1 + 10).minusMillis(500));
        } finally {
            stubborn.release.countDown();
        }
    }
}
