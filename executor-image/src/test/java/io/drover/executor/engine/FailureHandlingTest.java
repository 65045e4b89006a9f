package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.handler.JobContext;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.handler.NoopHandler;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.RecordingHandler;
import io.drover.executor.testing.TestDatabase;
import io.drover.executor.testing.TestNode;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** Retries with backoff, dead letters with reasons, and a node that survives whatever a job does. */
class FailureHandlingTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    /** Fails until the given attempt, recording when each attempt ran. */
    static final class Flaky implements JobHandler {
        final Map<Long, List<Long>> attemptsAt = new ConcurrentHashMap<>();

        @Override
        public String type() {
            return "flaky";
        }

        @Override
        public void execute(JobContext job) {
            attemptsAt.computeIfAbsent(job.id(), k -> new CopyOnWriteArrayList<>()).add(System.nanoTime());
            if (job.attempt() < Integer.parseInt(job.payload())) {
                throw new IllegalStateException("attempt " + job.attempt() + " fails on purpose");
            }
        }
    }

    /** Throws what the supplier makes, every time. */
    record Throwing(String type, java.util.function.Supplier<Throwable> error) implements JobHandler {
        @Override
        public void execute(JobContext job) throws Exception {
            Throwable t = error.get();
            if (t instanceof Error e) {
                throw e;
            }
            throw (Exception) t;
        }
    }

    @Test
    void failedJobIsRetriedWithExponentialBackoffThenSucceeds() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        Flaky flaky = new Flaky();
        jobs.enqueue(1, "flaky", "3", 3);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.retryBackoff(Duration.ofMillis(300)),
                List.of(flaky))) {
            Jobs.await("job done", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
        }
        List<Long> at = flaky.attemptsAt.values().iterator().next();
        assertThat(at).hasSize(3);
        // backoff 300 ms then 600 ms, each with at most -20% jitter
        assertThat(Duration.ofNanos(at.get(1) - at.get(0))).isGreaterThanOrEqualTo(Duration.ofMillis(240));
        assertThat(Duration.ofNanos(at.get(2) - at.get(1))).isGreaterThanOrEqualTo(Duration.ofMillis(480));
        assertThat(jobs.deadLetters()).isZero();
    }

    @Test
    void jobThatKeepsFailingEndsInDeadLettersWithItsError() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(1, "flaky", "99", 2);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.retryBackoff(Duration.ofMillis(50)),
                List.of(new Flaky()))) {
            Jobs.await("job dead-lettered", Duration.ofSeconds(30), () -> jobs.deadLetters() == 1);
        }
        assertThat(jobs.jobsLeft()).isZero();
        Map<String, Object> dead = deadLetter(schema);
        assertThat(dead.get("attempts")).isEqualTo(2);
        assertThat((String) dead.get("error")).contains("failed 2 of 2 attempts")
                .contains("IllegalStateException: attempt 2 fails on purpose");
        assertThat(dead.get("payload")).isEqualTo("99");
    }

    @Test
    void aBadPayloadGoesStraightToDeadLettersWithTheHandlersReason() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(1, RecordingHandler.TYPE, "not-a-number", 5);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s,
                List.of(new RecordingHandler(db, schema, "in-jvm")))) {
            Jobs.await("bad payload dead-lettered", Duration.ofSeconds(30), () -> jobs.deadLetters() == 1);
        }
        assertThat(jobs.count("select count(*) from {s}.dead_letter where type = 'record' and attempts = 1"
                + " and error like '%InvalidPayloadException: payload must be a number of milliseconds%'"))
                .isEqualTo(1);
        assertThat(jobs.executions()).as("the bad job never reached its side effect").isZero();
    }

    @Test
    void aJobOfAnUnknownTypeIsHandedBackUnchargedThenDeadLetteredAfterAnHourOfHandBacks() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(2, "mystery", "{}", 5);
        // The second one has been handed back for nearly an hour already.
        jobs.execute("update {s}.job set deferrals = " + (RetryPolicy.MAX_DEFERRALS - 1)
                + " where id = (select max(id) from {s}.job)");
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s,
                List.of(new RecordingHandler(db, schema, "in-jvm")))) {
            Jobs.await("one handed back, one dead-lettered", Duration.ofSeconds(30), () -> jobs.deadLetters() == 1
                    && jobs.count("select count(*) from {s}.job where deferrals = 1 and locked_by is null") == 1);
        }
        assertThat(jobs.count("select count(*) from {s}.job where attempts = 0 and due_at > now() + interval '50 seconds'"
                + " and last_error like 'no handler for job type ''mystery'' on node in-jvm (it has [record])%'"))
                .as("handed back: no attempt charged, due again in a minute, with the reason").isEqualTo(1);
        assertThat((String) deadLetter(schema).get("error")).contains("no handler for job type 'mystery'")
                .contains("handed back " + RetryPolicy.MAX_DEFERRALS + " times").contains("[record]");
        assertThat(deadLetter(schema).get("attempts")).as("it never ran").isEqualTo(0);
    }

    /**
     * A handler that cannot run a job as this node's settings stand (an http job whose host this
     * node does not allow, while a rolling change adds it): handed back for another node as a job
     * of a type without a handler is, no attempt charged; it was dead-lettered unrun at once.
     */
    @Test
    void aJobTheHandlerCannotRunOnThisNodeIsHandedBackNotDeadLettered() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(3, "picky", "{}", 1);
        jobs.execute("update {s}.job set deferrals = " + (RetryPolicy.MAX_DEFERRALS - 1)
                + " where id = (select max(id) from {s}.job)");
        // A suspect (a node died holding it): its run is watched, its start mark charges the attempt first.
        long suspect = jobs.count("select min(id) from {s}.job");
        jobs.execute("update {s}.job set suspect = true where id = " + suspect);
        JobHandler picky = io.drover.executor.testing.Handlers.of("picky", job -> {
            throw new io.drover.executor.handler.NotRunnableHere("host 'x' is not in http.allowedHosts");
        });
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s, List.of(picky))) {
            Jobs.await("two handed back, one dead-lettered", Duration.ofSeconds(30), () -> jobs.deadLetters() == 1
                    && jobs.count("select count(*) from {s}.job where deferrals = 1 and locked_by is null") == 2);
        }
        assertThat(jobs.count("select count(*) from {s}.job where attempts = 0 and due_at > now() + interval '50 seconds'"
                + " and last_error = 'host ''x'' is not in http.allowedHosts (node in-jvm); handed back for another node'"))
                .as("handed back: no attempt charged (a watched run's given back), due again in a minute, with the reason")
                .isEqualTo(2);
        assertThat((String) deadLetter(schema).get("error")).isEqualTo("host 'x' is not in http.allowedHosts (node in-jvm):"
                + " handed back " + RetryPolicy.MAX_DEFERRALS + " times by the nodes that took it");
    }

    @Test
    void nodeSurvivesHandlersThatThrowErrors() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        JobHandler explode = new Throwing("explode", () -> new StackOverflowError("simulated"));
        jobs.enqueue(20, "explode", "", 1);
        jobs.enqueue(500, NoopHandler.TYPE, "", 1);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.threads(2),
                List.of(explode, new NoopHandler()))) {
            Jobs.await("all jobs handled", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
            assertThat(engine.state()).isEqualTo(ExecutorEngine.State.RUNNING);
            jobs.enqueue(100, NoopHandler.TYPE, "", 1);
            Jobs.await("later jobs still run", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
        }
        assertThat(jobs.deadLetters()).isEqualTo(20);
    }

    /** An Error that cannot even be described: its message throws another one. */
    static final class Undescribable extends Error {
        @Override
        public String getMessage() {
            throw new Undescribable();
        }
    }

    /** A failure whose description fails too is still a failed attempt, recorded with what can be said of it. */
    @Test
    void aFailureThatCannotBeDescribedIsStillRecorded() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(1, "undescribable", "", 2);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.retryBackoff(Duration.ofMillis(50)),
                List.of(new Throwing("undescribable", Undescribable::new)))) {
            Jobs.await("dead-lettered after its attempts", Duration.ofSeconds(30), () -> jobs.deadLetters() == 1);
            assertThat(engine.stuck()).as("the node works on").isEmpty();
        }
        assertThat((String) deadLetter(schema).get("error")).isEqualTo("failed 2 of 2 attempts; last error: "
                + Undescribable.class.getName() + " (its description failed: " + Undescribable.class.getName() + ")");
    }

    /**
     * A shutdown past its grace period interrupts the runs still going: not a failed attempt,
     * however the handler reports the interrupt. Handlers commonly wrap it (here in a
     * RuntimeException, as a library's blocking call does); counted as a failure, a job of one
     * attempt was dead-lettered by a routine scale-down.
     */
    @Test
    void aShutdownsInterruptIsNoFailedAttemptHoweverTheHandlerReportsIt() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        JobHandler wraps = io.drover.executor.testing.Handlers.of("wraps", job -> {
            running.countDown();
            try {
                Thread.sleep(Duration.ofMinutes(5));
            } catch (InterruptedException e) {
                throw new IllegalStateException("the call was interrupted", e); // the flag is not restored
            }
        });
        jobs.enqueue(1, "wraps", "", 1);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.shutdownGracePeriod(Duration.ofSeconds(1)),
                List.of(wraps))) {
            assertThat(running.await(30, java.util.concurrent.TimeUnit.SECONDS)).as("the job runs").isTrue();
        }
        assertThat(jobs.deadLetters()).as("dead letters").isZero();
        assertThat(jobs.count("select count(*) from {s}.job where locked_by is null and attempts = 0"
                + " and last_error = 'interrupted by executor shutdown'")).as("handed back at no cost").isEqualTo(1);
    }

    /**
     * A handler that throws InterruptedException while nothing interrupted it (no shutdown, no
     * timeout) failed its attempt: given back at no cost, as a shutdown's interrupt is, it ran
     * again at once and for ever.
     */
    @Test
    void anInterruptedExceptionTheHandlerThrowsItselfIsAFailedAttempt() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        JobHandler interrupted = new Throwing("interrupted", () -> {
            runs.incrementAndGet();
            return new InterruptedException("a library's own wait gave up");
        });
        jobs.enqueue(1, "interrupted", "", 3);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.retryBackoff(Duration.ofMillis(50)),
                List.of(interrupted))) {
            Jobs.await("dead-lettered after its attempts", Duration.ofSeconds(30), () -> jobs.deadLetters() == 1);
        }
        assertThat(runs.get()).as("one run per attempt").isEqualTo(3);
        assertThat((String) deadLetter(schema).get("error")).contains("failed 3 of 3 attempts")
                .contains("InterruptedException: a library's own wait gave up");
    }

    @Test
    void anErrorTextThatPostgresCannotStoreDoesNotStallCompletions() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        JobHandler nul = new Throwing("nul", () -> new IllegalStateException("bad byte \u0000 in a message"));
        jobs.enqueue(3, "nul", "", 1);
        jobs.enqueue(100, NoopHandler.TYPE, "", 1);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s, List.of(nul, new NoopHandler()))) {
            Jobs.await("all jobs completed, including those in the same batches", Duration.ofSeconds(30),
                    () -> jobs.jobsLeft() == 0);
        }
        // chr(92) is the backslash: the NUL arrives escaped as the two characters \0.
        assertThat(jobs.count("select count(*) from {s}.dead_letter"
                + " where strpos(error, 'bad byte ' || chr(92) || '0 in a message') > 0")).isEqualTo(3);
    }

    @Test
    void expiredLocksOfDeadNodesAreRecoveredCountingCrashesAndNodeKillersEndInDeadLetters() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(3, RecordingHandler.TYPE, "", 3);
        // All three locked by a node that died a minute ago: the first was only queued there, the
        // second was running (a first crash), the third was running and had killed two nodes before.
        jobs.execute("update {s}.job set locked_by = 'gone:0000', lock_expires_at = now() - interval '1 minute'");
        jobs.execute("update {s}.job set started_at = now() - interval '2 minutes', attempts = 1"
                + " where id > (select min(id) from {s}.job)");
        jobs.execute("update {s}.job set crashes = 2 where id = (select max(id) from {s}.job)");
        long poison = jobs.count("select max(id) from {s}.job");
        // lockExpiry 4 s: a starting node's first sweep waits its quiet period (9 s: sweepQuietPeriod).
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.lockExpiry(Duration.ofSeconds(4)),
                List.of(new RecordingHandler(db, schema, "in-jvm")))) {
            Jobs.await("all recovered", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
            assertThat(engine.metrics().registry().get("drover.jobs.crashed").counter().count()).isEqualTo(2);
            assertThat(engine.metrics().registry().get("drover.jobs.poisoned").counter().count()).isEqualTo(1);
        }
        assertThat(jobs.executions()).as("the queued job and the first-time crash ran again").isEqualTo(2);
        Map<String, Object> dead = deadLetter(schema);
        assertThat((String) dead.get("error"))
                .isEqualTo("poison: 3 executor nodes died while running it (the last: gone:0000)");
        assertThat(dead.get("attempts")).as("a crash is not the handler's failure: its attempt is given back")
                .isEqualTo(0);
        assertThat(jobs.count("select crashes from {s}.dead_letter where id = " + poison)).isEqualTo(3);
    }

    private static Map<String, Object> deadLetter(String schema) throws Exception {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select attempts, error, payload from " + schema
                     + ".dead_letter order by failed_at limit 1")) {
            assertThat(rs.next()).as("a dead letter exists").isTrue();
            return Map.of("attempts", rs.getInt(1), "error", rs.getString(2),
                    "payload", rs.getString(3) == null ? "" : rs.getString(3));
        }
    }
}
