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
     * A handler that calls System.exit begins the node's graceful stop from inside its own run,
     * which can never return: its thread waits in the exit for the stop. The stop gives the other
     * running job its grace and writes its outcome, but does not wait for the run that called
     * exit; the node ends with the handler's status. It used to wait out all of
     * shutdownGracePeriod (2 minutes here) for that run, until liveness killed the node.
     */
    @Test
    void aHandlerThatCallsExitEndsItsNodeWithoutWaitingOutTheGracePeriod() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        try (NodeProcess node = NodeProcess.start("exiting", schema, Map.of("threads", "2", "shutdownGracePeriod", "PT2M"))) {
            node.awaitReady();
            jobs.enqueue(1, RecordingHandler.TYPE, "3000", 3);
            Jobs.await("the job beside it started", Duration.ofSeconds(30),
                    () -> jobs.count("select count(*) from {s}.test_execution") == 1);
            jobs.enqueue(1, "exit", "3", 3);
            assertThat(node.awaitExit(Duration.ofSeconds(60))).as("the node's exit status: the handler's").isEqualTo(3);
            assertThat(node.output()).as("the graceful stop completed").anyMatch(l -> l.startsWith("STATS"));
        }
        assertThat(jobs.count("select count(*) from {s}.test_execution where finished_at is not null"))
                .as("the job running beside it, given its grace").isEqualTo(1);
        assertThat(jobs.count("select count(*) from {s}.job where type = 'record'")).as("its outcome, written").isZero();
        assertThat(jobs.count("select count(*) from {s}.job where type = 'exit' and locked_by like 'exiting:%'"))
                .as("the job that called exit: left locked by its node, as a killed node's is, for recovery to"
                        + " make it a suspect").isEqualTo(1);
    }

    /**
     * A suspect's decisive run (the node died under it maxCrashes - 1 times) runs alone: the
     * other workers wait at the gate until it ends. When that run calls System.exit it never ends,
     * and the stop, which does not wait for it, waited for those workers instead, all of
     * shutdownGracePeriod (2 minutes here), though none of them runs a job: in the chaos
     * campaign liveness killed most such nodes first. Now they give their jobs back at once, and
     * no job beside it runs, or is charged an attempt.
     */
    @Test
    void aSuspectsSoloRunThatCallsExitDoesNotHoldTheStopForTheWorkersWaitingBehindIt() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        // The exit job first (due earlier), a suspect one crash short of poison (maxCrashes 3);
        // then ordinary jobs, so the other worker takes one and waits at the gate behind it.
        jobs.execute("insert into {s}.job (type, payload, max_attempts, suspect, crashes, due_at)"
                + " values ('exit', '3', 3, true, 2, now() - interval '1 minute')");
        jobs.enqueue(20, RecordingHandler.TYPE, "100", 3);
        try (NodeProcess node = NodeProcess.start("soloexit", schema, Map.of("threads", "2", "shutdownGracePeriod", "PT2M"))) {
            assertThat(node.awaitExit(Duration.ofSeconds(60))).as("the node's exit status: the handler's").isEqualTo(3);
            assertThat(node.output()).as("the graceful stop completed").anyMatch(l -> l.startsWith("STATS"))
                    .as("the stop did not wait for the run that called exit").anyMatch(l -> l.contains("called System.exit"))
                    .as("nor for workers still busy at its deadline").noneMatch(l -> l.contains("still busy"));
        }
        // One of them may run before the solo run (the two workers race to the gate); none beside it.
        assertThat(jobs.count("select count(*) from {s}.test_execution where finished_at is null")).as("runs cut short").isZero();
        assertThat(jobs.count("select count(*) from {s}.test_execution where finished_at"
                + " > (select started_at from {s}.job where type = 'exit')")).as("runs beside the solo run").isZero();
        assertThat(jobs.count("select count(*) from {s}.job where type = 'record'") + jobs.distinctFinished())
                .as("ordinary jobs left or done").isEqualTo(20);
        assertThat(jobs.count("select count(*) from {s}.job where type = 'record' and (locked_by is not null or attempts > 0)"))
                .as("ordinary jobs left locked or charged an attempt").isZero();
        assertThat(jobs.count("select count(*) from {s}.job where type = 'exit' and locked_by like 'soloexit:%'"))
                .as("the job that called exit: left locked by its node, for recovery to count its third crash").isEqualTo(1);
    }

    /**
     * A stop while the database does not answer (a black-holed network, a frozen server: the
     * statements in flight ignore interrupts) ends within shutdownGracePeriod and AFTER_GRACE all
     * the same, with jobs running and queued. The stop waited 30 s for the acquirer's statement
     * before anything else, then for the release of the queued jobs on a connection that never
     * came, then 5 s each for a renewal and a sweep, whatever the grace period: the kubelet killed
     * such a node.
     */
    @Test
    void aStopWhileTheDatabaseHangsEndsWithinItsGracePeriodAndTheTimeAfterIt() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.Set<String> hung = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.CountDownLatch answer = new java.util.concurrent.CountDownLatch(1);
        javax.sql.DataSource hanging = LoopFailureTest.intercepted(db, () -> armed.get()
                && java.util.stream.Stream.of("drover-acquirer-", "drover-renewer-", "drover-sweeper-", "drover-release-", "closer")
                .anyMatch(Thread.currentThread().getName()::startsWith), () -> {
            hung.add(Thread.currentThread().getName().replaceAll("-in-jvm$", ""));
            awaitAsADeadConnection(answer, true);
        });
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        ExecutorEngine engine = io.drover.executor.testing.TestNode.start(hanging, schema, b -> b.threads(1)
                .shutdownGracePeriod(Duration.ofSeconds(1)).acquireInterval(Duration.ofMillis(200)),
                java.util.List.of(io.drover.executor.testing.Handlers.of("noop", job -> { }),
                        io.drover.executor.testing.Handlers.of("long", job -> {
                            running.countDown();
                            Thread.sleep(60_000); // until the stop's interrupt
                        })));
        try {
            jobs.enqueue(1, "long", "", 3);
            assertThat(running.await(30, java.util.concurrent.TimeUnit.SECONDS)).as("the long job running").isTrue();
            jobs.enqueue(5, "noop", "", 3); // queued behind it: the stop releases them
            Jobs.await("the queued jobs taken", Duration.ofSeconds(30),
                    () -> jobs.count("select count(*) from {s}.job where locked_by is not null") == 6);
            armed.set(true);
            Jobs.await("the acquirer hung in a database call", Duration.ofSeconds(30), () -> hung.contains("drover-acquirer"));
            long start = System.nanoTime();
            Thread closer = Thread.ofPlatform().name("closer").start(engine::close);
            closer.join(Duration.ofSeconds(40));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(closer.isAlive()).as("the stop, still going after 40 s (%s hung)", hung).isFalse();
            // AFTER_GRACE is the stop's own bound; the kubelet's kill comes 10 s past the grace period.
            assertThat(took).as("stop with %s hung: shutdownGracePeriod 1 s, then at most %s and a moment", hung,
                    ExecutorEngine.AFTER_GRACE).isLessThan(Duration.ofSeconds(1).plus(ExecutorEngine.AFTER_GRACE).plusMillis(2500));
            assertThat(hung).as("the release of the queued jobs was tried").contains("drover-release");
        } finally {
            answer.countDown();
            engine.close();
        }
    }

    /**
     * An acquisition still on its way when the stop gave up waiting for it (its statement hung
     * on a dead connection, then answered): the page it locks is released by the acquirer, not
     * queued on the stopped node, where it stayed locked until its locks lapsed (lockExpiry, a
     * minute here) while no worker would take it.
     */
    @Test
    void aPageAcquiredAfterTheStopBeganIsReleasedForOtherNodes() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean hung = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.CountDownLatch answer = new java.util.concurrent.CountDownLatch(1);
        // The acquisition's own connection (not the idle look's, nor the stray release's) hangs.
        javax.sql.DataSource hanging = LoopFailureTest.intercepted(db, () -> armed.get()
                && Thread.currentThread().getName().startsWith("drover-acquirer-")
                && StackWalker.getInstance().walk(frames -> frames.noneMatch(f -> f.getMethodName().equals("idle")
                        || f.getMethodName().equals("settleStrays") || f.getClassName().endsWith(".UnstartedRelease")))
                && armed.compareAndSet(true, false), () -> {
            hung.set(true);
            awaitAsADeadConnection(answer, false);
        });
        ExecutorEngine engine = io.drover.executor.testing.TestNode.start(hanging, schema, b -> b
                .shutdownGracePeriod(Duration.ofSeconds(1)), java.util.List.of(io.drover.executor.testing.Handlers.of("noop", job -> { })));
        try {
            // Hung first (the acquirer tries every acquireInterval, jobs or not), then the jobs:
            // enqueued before, a cycle already past its connection could take and run them.
            armed.set(true);
            Jobs.await("the acquisition hung", Duration.ofSeconds(30), hung::get);
            jobs.enqueue(5, "noop", "", 3);
            engine.close();
            long version = jobs.count("select max(version) from {s}.job");
            answer.countDown(); // the statement answers after all: it locks the page for the stopped node
            Jobs.await("the late page acquired", Duration.ofSeconds(20),
                    () -> jobs.count("select count(*) from {s}.job where version > " + version) == 5);
            Jobs.await("the late page released", Duration.ofSeconds(10),
                    () -> jobs.count("select count(*) from {s}.job where locked_by is null") == 5);
            assertThat(jobs.count("select count(*) from {s}.test_execution")).as("runs on the stopped node").isZero();
        } finally {
            answer.countDown();
            engine.close();
        }
    }

    /**
     * A node stopped while it starts (the ShutdownEvent interrupts its start-up, here while its
     * session cannot connect): it starts no loop and takes no job. It went on into the release of
     * its predecessors' locks and started every loop, and its stop then began with a whole grace
     * period of its own.
     */
    @Test
    void aNodeStoppedAsItStartsStartsNoLoopAndTakesNoJob() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(5, "noop", "", 3);
        java.util.concurrent.atomic.AtomicBoolean hung = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.CountDownLatch answer = new java.util.concurrent.CountDownLatch(1);
        javax.sql.DataSource sessionHangs = LoopFailureTest.intercepted(db,
                () -> Thread.currentThread().getName().startsWith("drover-session-"), () -> {
                    hung.set(true);
                    answer.await();
                });
        ExecutorEngine engine = new ExecutorEngine(io.drover.executor.config.ExecutorSettings.builder().nodeName("in-jvm")
                .schema(schema).build(), sessionHangs,
                io.drover.executor.handler.HandlerRegistry.of(java.util.List.of(io.drover.executor.testing.Handlers.of("noop", job -> { }))),
                new io.drover.executor.metrics.ExecutorMetrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()));
        Thread starting = Thread.ofPlatform().name("start-up").start(engine::start);
        try {
            Jobs.await("the start waiting for its session", Duration.ofSeconds(30), hung::get);
            starting.interrupt();
            starting.join(Duration.ofSeconds(10));
            assertThat(starting.isAlive()).as("the start, still going 10 s after its interrupt").isFalse();
            assertThat(engine.state()).isEqualTo(ExecutorEngine.State.STOPPED);
            Thread.sleep(2000); // an acquisition would have come by now
            assertThat(jobs.count("select count(*) from {s}.job where locked_by is null")).as("jobs left unlocked").isEqualTo(5);
        } finally {
            answer.countDown();
            starting.join(Duration.ofSeconds(10));
            engine.close();
        }
    }

    /**
     * The run that called exit is not timed out while the stop waits for another run: the
     * timeout watch gave it up past its jobTimeout and wrote a timeout for it (an attempt charged,
     * the lock released), where its job must stay locked as a killed node's, for recovery to make
     * it a suspect. Here the stop waits 12 s for a job that ignores its interrupt, while the exit
     * run's jobTimeout (2 s) and the watch's grace (5 s) pass.
     */
    @Test
    void theRunThatCalledExitIsNotTimedOutWhileTheStopWaits() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        try (NodeProcess node = NodeProcess.start("exiting2", schema,
                Map.of("threads", "2", "jobTimeout", "PT2S", "shutdownGracePeriod", "PT1M"))) {
            node.awaitReady();
            jobs.enqueue(1, "stubborn", "12000", 3);
            Jobs.await("the stubborn job started", Duration.ofSeconds(30),
                    () -> node.output().stream().anyMatch(l -> l.startsWith("STUBBORN")));
            jobs.enqueue(1, "exit", "3", 3);
            assertThat(node.awaitExit(Duration.ofSeconds(60))).as("the node's exit status: the handler's").isEqualTo(3);
        }
        assertThat(jobs.text("select coalesce(string_agg(coalesce(locked_by, 'unlocked') || ' attempts ' || attempts"
                + " || ' ' || coalesce(last_error, ''), '; '), 'none') from {s}.job where type = 'exit'"))
                .as("the job that called exit: left locked by its node, not charged a timeout").startsWith("exiting2:")
                .contains("attempts 0");
    }

    /**
     * The longest grace period the operator writes (from maxJobDuration, up to 2562047h): a stop
     * still waits for the running jobs and writes their outcomes. Its deadline in nanoseconds,
     * plus the time after grace, no longer fit a long once the host had been up 47 minutes: the
     * stop gave up at once and left the finished jobs locked, to run again once their locks
     * expired.
     */
    @Test
    void aStopWithTheLongestGracePeriodWaitsForRunningJobsAndWritesTheirOutcomes() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(2);
        io.drover.executor.handler.JobHandler slow = io.drover.executor.testing.Handlers.of("slow", job -> {
            running.countDown();
            Thread.sleep(Long.parseLong(job.payload()));
        });
        // Outcomes are written slowly (2 s a statement): the second job's outcome is still to be
        // written when the first one's write returns, after the stop has begun.
        jobs.execute("create function {s}.slow_delete() returns trigger language plpgsql as $$"
                + " begin perform pg_sleep(2); return null; end $$");
        jobs.execute("create trigger slow_delete before delete on {s}.job for each statement execute function {s}.slow_delete()");
        jobs.enqueue(1, "slow", "1000", 3);
        jobs.enqueue(1, "slow", "1500", 3);
        ExecutorEngine engine = io.drover.executor.testing.TestNode.start(db, schema,
                s -> s.shutdownGracePeriod(Duration.ofHours(2562047)), java.util.List.of(slow));
        assertThat(running.await(30, java.util.concurrent.TimeUnit.SECONDS)).as("both jobs running").isTrue();
        engine.close();
        assertThat(jobs.jobsLeft()).as("jobs left, their outcomes unwritten").isZero();
        assertThat(jobs.deadLetters()).isZero();
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

    /**
     * Waits for {@code answer} as a read on a dead connection does: interrupts do not end it.
     * {@code keepInterrupt}: the interrupt is still set afterwards (a socket read leaves it), or
     * not, for a test whose thread must go on to use the database.
     */
    private static void awaitAsADeadConnection(java.util.concurrent.CountDownLatch answer, boolean keepInterrupt) {
        boolean interrupted = false;
        while (true) {
            try {
                answer.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted && keepInterrupt) {
            Thread.currentThread().interrupt();
        }
    }
}
