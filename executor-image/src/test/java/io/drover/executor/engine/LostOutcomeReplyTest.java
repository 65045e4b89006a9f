package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.handler.JobContext;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.LostReply;
import io.drover.executor.testing.TestDatabase;
import io.drover.executor.testing.TestNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An outcome whose write committed but whose reply was lost is written again by the completion
 * loop: the write must not reach the job's next tenure. Here a job fails, its retry outcome
 * commits (unlocked, due again in a few milliseconds) and the reply is lost; the same node
 * acquires the job again before the loop writes the first outcome again. Matched by id and
 * owner alone, that rewrite unlocked the held job and charged it an attempt, and the node took
 * and started it again while its second run went on: a job run twice at once with no node
 * having died. Outcomes now match the lock tenure (the row's version at acquisition) too.
 */
class LostOutcomeReplyTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @Test
    void aRewrittenOutcomeWhoseFirstWriteCommittedLeavesTheJobsNextTenureAlone() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        LostReply network = new LostReply(db, new JobSql(new Tables(schema)).retry());
        AtomicInteger starts = new AtomicInteger();
        CountDownLatch secondRunStarted = new CountDownLatch(1);
        CountDownLatch finishSecondRun = new CountDownLatch(1);
        JobHandler failsOnce = new JobHandler() {
            public String type() {
                return "fails-once";
            }

            public void execute(JobContext job) throws Exception {
                if (starts.incrementAndGet() == 1) {
                    throw new IllegalStateException("the first run fails");
                }
                secondRunStarted.countDown();
                finishSecondRun.await();
            }
        };
        jobs.enqueue(1, "fails-once", "", 5);
        var registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        try (ExecutorEngine engine = TestNode.start(network, schema, s -> s.threads(2)
                .retryBackoff(Duration.ofMillis(10)).retryBackoffMax(Duration.ofMillis(10))
                .acquireInterval(Duration.ofMillis(20)), List.of(failsOnce), registry)) {
            try {
                assertThat(network.awaitReplyLost(Duration.ofSeconds(30))).as("the retry outcome's reply lost").isTrue();
                // Its second tenure: the retry committed (attempts 1, unlocked), and the node took it again.
                Jobs.await("the node holds the job again", Duration.ofSeconds(30), () -> jobs.count(
                        "select count(*) from {s}.job where locked_by is not null and attempts = 1") == 1);
                network.letRewriteThrough();
                Jobs.await("the first outcome written again", Duration.ofSeconds(30),
                        () -> network.rewrites().size() == 1);
                assertThat(network.rewrites()).as("rows the rewrite changed: the row is the next tenure's")
                        .containsExactly(0);
                // Jobs start only while no outcome write is stuck (for a second): the second run
                // starts once the rewrite is through.
                assertThat(secondRunStarted.await(30, TimeUnit.SECONDS)).as("the second tenure's run started")
                        .isTrue();

                // Time for a wrongly unlocked job (due 10 ms later) to be taken and started again.
                Thread.sleep(1000);
                assertThat(starts.get()).as("runs started: the second is still running").isEqualTo(2);
                assertThat(jobs.count("select count(*) from {s}.job where locked_by is not null and attempts = 1"))
                        .as("still held by its second tenure, charged the first run only").isEqualTo(1);
            } finally {
                finishSecondRun.countDown(); // before the engine's close waits for the run
            }
            Jobs.await("the job done", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
            // The lease ends once the write has returned, a moment after its commit (seen above).
            Jobs.await("its lease ended", Duration.ofSeconds(5), () -> engine.heldJobs() == 0);
        }
        assertThat(starts.get()).isEqualTo(2);
        assertThat(jobs.deadLetters()).isZero();
        // The outcome's own tenure ended when the node took the row again: its lease is gone, so
        // the unchanged rewrite cannot be told from a lost lock, and is counted as one.
        assertThat(registry.get("drover.locks.lost").counter().count()).isEqualTo(1);
        assertThat(registry.get("drover.outcomes.rewrites.unchanged").counter().count()).isZero();
    }

    /**
     * A database blip that drops the answer to a committed completion: the rewrite finds the row
     * gone, while the job's lock was this node's all along. No other node can have run it, so it
     * is not a lost lock, and drover_locks_lost_total (whose alert means "jobs may have run
     * twice") stays at zero.
     */
    @Test
    void aRewriteThatFindsItsOwnCommitIsNotALostLock() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        LostReply network = new LostReply(db, new JobSql(new Tables(schema)).deleteDone());
        network.letRewriteThrough();
        var registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        jobs.enqueue(1, "noop", "", 5);
        try (ExecutorEngine engine = TestNode.start(network, schema, s -> s.threads(2)
                .acquireInterval(Duration.ofMillis(20)), List.of(new io.drover.executor.handler.NoopHandler()), registry)) {
            assertThat(network.awaitReplyLost(Duration.ofSeconds(30))).as("the completion's reply lost").isTrue();
            Jobs.await("the outcome written again", Duration.ofSeconds(30), () -> network.rewrites().size() == 1);
            assertThat(network.rewrites()).as("the first write had deleted the row").containsExactly(0);
            Jobs.await("nothing held", Duration.ofSeconds(30), () -> engine.heldJobs() == 0);
        }
        assertThat(jobs.jobsLeft()).isZero();
        assertThat(jobs.deadLetters()).isZero();
        assertThat(registry.get("drover.locks.lost").counter().count()).as("locks lost").isZero();
        assertThat(registry.get("drover.outcomes.rewrites.unchanged").counter().count()).isEqualTo(1);
    }
}
