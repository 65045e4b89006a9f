package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.handler.JobContext;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.handler.NoopHandler;
import io.drover.executor.store.PooledDataSource;
import io.drover.executor.testing.Handlers;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.RecordingHandler;
import io.drover.executor.testing.TestDatabase;
import io.drover.executor.testing.TestNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a node does when a job or the database misbehaves: it never wedges, never runs a job
 * whose lock it lost, never charges an attempt for a run that did not start.
 */
class EngineReliabilityTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    /** Blocks until released, ignoring interrupts (a handler stuck in uninterruptible I/O). */
    static final class Stubborn implements JobHandler {
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger entered = new AtomicInteger();

        @Override
        public String type() {
            return "stubborn";
        }

        @Override
        public void execute(JobContext job) {
            entered.incrementAndGet();
            while (true) {
                try {
                    if (release.await(10, TimeUnit.SECONDS)) {
                        return;
                    }
                } catch (InterruptedException ignored) {
                    // ignores interrupts on purpose
                }
            }
        }
    }

    /** Sleeps until interrupted. */
    static final class Sleeper implements JobHandler {
        @Override
        public String type() {
            return "sleeper";
        }

        @Override
        public void execute(JobContext job) throws InterruptedException {
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /**
     * A database that takes only reads (a replica named as database.host, or a role or database
     * that defaults to read-only transactions): every acquisition is refused (25006), the node
     * takes nothing, and it says why in the words the operator shows (DatabaseReadOnly), where it
     * used to look like a database that does not answer. The node's connections here open with
     * default_transaction_read_only on: the refusals are PostgreSQL's own.
     */
    @Test
    void aNodeOnADatabaseThatTakesOnlyReadsSaysSo() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(5, "noop", "", 3);
        String url = TestDatabase.jdbcUrl();
        try (AgroalDataSource readOnly = PooledDataSource.create(url + (url.contains("?") ? "&" : "?")
                + "options=-c%20default_transaction_read_only%3Don", "postgres", "postgres", 8);
             ExecutorEngine engine = TestNode.start(readOnly, schema, s -> s, List.of(new NoopHandler()))) {
            Jobs.await("the node says why it takes no jobs", Duration.ofSeconds(30), () -> engine.problem().isPresent());
            assertThat(engine.problem().get().reason()).isEqualTo("DatabaseReadOnly");
            assertThat(engine.problem().get().message()).contains("SQLState 25006").contains("writer endpoint");
        }
        assertThat(jobs.jobsLeft()).isEqualTo(5);
    }

    /**
     * Workers free their queue slots as they take jobs, so a database slower at writing outcomes
     * than the handlers are at making them must hold acquisition back: a node once held 225,000
     * finished jobs, renewing all of them, when deletes fell behind. Here every delete takes 50 ms
     * (a statement trigger) for no-op jobs: the node must keep what it holds near a queue's worth.
     */
    @Test
    void aNodeStopsAcquiringWhileTheDatabaseIsBehindWithOutcomes() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.execute("create function {s}.slow_delete() returns trigger language plpgsql as $$"
                + " begin perform pg_sleep(0.05); return null; end $$");
        jobs.execute("create trigger slow_delete before delete on {s}.job for each statement execute function {s}.slow_delete()");
        jobs.enqueue(3000, NoopHandler.TYPE, "", 1);
        int queueSize = 64;
        int threads = 4;
        int batch = 50;
        int maxHeld = 0;
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.threads(threads).queueSize(queueSize)
                .acquirePageSize(queueSize).completionBatchSize(batch), List.of(new NoopHandler()))) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (jobs.jobsLeft() > 0 && System.nanoTime() < deadline) {
                maxHeld = Math.max(maxHeld, engine.heldJobs());
                Thread.sleep(10);
            }
            assertThat(jobs.jobsLeft()).as("jobs left after 60 s").isZero();
        }
        // queued + running + the outcomes of everything taken after the last look + one write in flight
        int bound = queueSize + threads + Math.max(queueSize, batch) + queueSize + threads + batch;
        assertThat(maxHeld).as("most jobs the node held at once (bound %d)", bound).isBetween(1, bound);
    }

    @Test
    void rowsOutOfRangeAreDeadLetteredWithAReasonAndNeverStopTheNode() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        // Written with plain SQL, as the API would refuse them: due in 1700 (this once killed
        // every worker of a node), a recurring period of about 1000 years, a 2 MB payload.
        jobs.execute("insert into {s}.job (type, payload, due_at) select 'record', '', '1700-01-01 00:00:00+00' from generate_series(1, 4)");
        jobs.execute("insert into {s}.job (type, payload, repeat_interval) values ('record', '', interval '9000000 hours')");
        // Periods in calendar units: the next slot, worked out in seconds, fell in the past (the timer
        // ran again at once) or skipped one still to come.
        jobs.execute("insert into {s}.job (type, payload, repeat_interval) values ('record', '', interval '1 mon'),"
                + " ('record', '', interval '1 day'), ('record', '', interval '1 mon -29 days 23:59:59')");
        jobs.execute("insert into {s}.job (type, payload) values ('record', repeat('x', 2000000))");
        // Counters at the int's end: adding one to them failed every statement over their page
        // (the acquisition's version, on every node, for good).
        jobs.execute("insert into {s}.job (type, payload, version) values ('record', '', 2147483647)");
        jobs.execute("insert into {s}.job (type, payload, attempts, max_attempts) values ('record', '', 2147483647, 2147483647)");
        jobs.execute("insert into {s}.job (type, payload, crashes, suspect) values ('record', repeat('x', 20000), 2147483647, true)");
        jobs.enqueue(300, RecordingHandler.TYPE, "", 1);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.threads(2),
                List.of(new RecordingHandler(db, schema, "in-jvm")))) {
            Jobs.await("all handled", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
            assertThat(engine.stuck()).isEmpty();
            jobs.enqueue(50, RecordingHandler.TYPE, "", 1);
            Jobs.await("later jobs still run", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
        }
        assertThat(jobs.executions()).as("the 350 and the row at the last version").isEqualTo(351);
        assertThat(jobs.count("select count(*) from {s}.dead_letter where attempts = 0 and error like"
                + " 'dueAt is out of range: must not be before 2000-01-01T00:00:00Z, got 1700-01-01T00:00:00Z'")).isEqualTo(4);
        assertThat(jobs.count("select count(*) from {s}.dead_letter where error like"
                + " 'repeat interval is out of range: must be between 1s and 100 years%'")).isEqualTo(1);
        assertThat(jobs.count("select count(*) from {s}.dead_letter where attempts = 0 and error like"
                + " 'repeat interval is out of range: must be a period of hours, minutes and seconds%'")).isEqualTo(3);
        assertThat(jobs.count("select count(*) from {s}.dead_letter where error ="
                + " 'payload is too large: must be at most 1048576 bytes, got 2000000'")).isEqualTo(1);
        assertThat(jobs.count("select count(*) from {s}.dead_letter where error in"
                + " ('a counter is out of range: attempts must be between 0 and 1000000, got 2147483647',"
                + " 'a counter is out of range: crashes must be between 0 and 1000000, got 2147483647')")).isEqualTo(2);
    }

    @Test
    void aHungHandlerTimesOutAndItsWorkerIsReplacedWhileTheNodeKeepsWorking() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        Stubborn stubborn = new Stubborn();
        jobs.enqueue(1, "stubborn", "", 1);
        jobs.enqueue(1, "sleeper", "", 2);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.threads(2).jobTimeout(Duration.ofSeconds(1))
                .retryBackoff(Duration.ofMillis(100)), List.of(stubborn, new Sleeper(), new NoopHandler()))) {
            Jobs.await("both dead-lettered after their timeouts", Duration.ofSeconds(30), () -> jobs.deadLetters() == 2);
            // Both workers were busy with hung jobs; the node still runs new work.
            jobs.enqueue(200, NoopHandler.TYPE, "", 1);
            Jobs.await("new jobs run beside the stuck worker", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
            assertThat(engine.stuck()).as("one of two workers stuck is not yet a dead node").isEmpty();
            assertThat(engine.metrics().registry().get("drover.threads.stuck").gauge().value()).isEqualTo(1);
            stubborn.release.countDown();
            Jobs.await("the stuck worker comes back", Duration.ofSeconds(30),
                    () -> engine.metrics().registry().get("drover.threads.stuck").gauge().value() == 0);
        }
        assertThat(jobs.count("select count(*) from {s}.dead_letter where type = 'stubborn' and error like"
                + " 'failed 1 of 1 attempts; last error: timed out after PT1S (jobTimeout) and did not stop when"
                + " interrupted; its worker thread was replaced'")).isEqualTo(1);
        assertThat(jobs.count("select count(*) from {s}.dead_letter where type = 'sleeper' and attempts = 2 and error like"
                + " 'failed 2 of 2 attempts; last error: timed out after PT1S (jobTimeout); the handler was interrupted'"))
                .isEqualTo(1);
        assertThat(stubborn.entered.get()).isEqualTo(1);
    }

    @Test
    void aNodeWhoseWorkersAreAllStuckSaysSoForLivenessToRestartIt() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        Stubborn stubborn = new Stubborn();
        jobs.enqueue(2, "stubborn", "", 1);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.threads(2).jobTimeout(Duration.ofMillis(500)),
                List.of(stubborn))) {
            Jobs.await("both workers given up", Duration.ofSeconds(30), () -> !engine.stuck().isEmpty());
            assertThat(engine.stuck()).containsExactly("2 worker threads are stuck in handlers that ignore interrupts");
            stubborn.release.countDown();
        }
    }

    @Test
    void aQueuedJobWhoseLockWentToAnotherNodeIsNeverStartedHere() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        Set<Long> ran = ConcurrentHashMap.newKeySet();
        JobHandler gated = new JobHandler() {
            public String type() {
                return "gated";
            }

            public void execute(JobContext job) throws InterruptedException {
                ran.add(job.id());
                first.countDown();
                go.await();
            }
        };
        jobs.enqueue(20, "gated", "", 1);
        // lockExpiry 4 s: renewal every second.
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.threads(1).lockExpiry(Duration.ofSeconds(4)),
                List.of(gated))) {
            assertThat(first.await(30, TimeUnit.SECONDS)).isTrue();
            Jobs.await("the rest queued", Duration.ofSeconds(10), () -> engine.heldJobs() == 20);
            // As if this node had been cut off past lockExpiry: another node swept and took them.
            int taken = jobs.execute("update {s}.job set locked_by = 'other:0001' where id <> "
                    + ran.iterator().next());
            assertThat(taken).isEqualTo(19);
            Jobs.await("the renewal found them gone and dropped them", Duration.ofSeconds(10),
                    () -> engine.heldJobs() == 1);
            assertThat(engine.metrics().registry().get("drover.jobs.not.started").counter().count()).isEqualTo(19);
            go.countDown();
            Jobs.await("done", Duration.ofSeconds(30), () -> engine.heldJobs() == 0);
        }
        assertThat(ran).as("only the job that had started ran here").hasSize(1);
        assertThat(jobs.count("select count(*) from {s}.job where locked_by = 'other:0001' and attempts = 0"))
                .isEqualTo(19);
    }

    @Test
    void attemptsAreChargedByRunsNotByQueueing() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        CountDownLatch go = new CountDownLatch(1);
        JobHandler blocked = Handlers.of("blocked", job -> {
            go.await();
            throw new IllegalStateException("fails after the wait");
        });
        jobs.enqueue(10, "blocked", "", 3);
        // A suspect: a node died holding it, so its run is watched, with a start mark.
        jobs.execute("update {s}.job set suspect = true where id = (select min(id) from {s}.job)");
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.threads(2).retryBackoff(Duration.ofMinutes(5)),
                List.of(blocked))) {
            Jobs.await("all held, two running", Duration.ofSeconds(30), () -> engine.heldJobs() == 10
                    && engine.busyThreads() == 2);
            assertThat(jobs.count("select count(*) from {s}.job where attempts = 1 and started_at is not null and suspect"))
                    .as("the suspect's start mark charged its attempt").isEqualTo(1);
            assertThat(jobs.count("select count(*) from {s}.job where attempts = 0 and started_at is null"))
                    .as("the ordinary running job and the 8 queued ones: nothing charged").isEqualTo(9);
            go.countDown();
            Jobs.await("all failed once", Duration.ofSeconds(30),
                    () -> jobs.count("select count(*) from {s}.job where attempts = 1 and locked_by is null") == 10);
        }
        assertThat(jobs.count("select count(*) from {s}.job where started_at is not null")).isZero();
    }

    @Test
    void aNodeNeverSweepsTheJobsItHoldsAndRenewsThemAfterTheirLocksExpired() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        JobHandler blocked = new JobHandler() {
            public String type() {
                return "blocked";
            }

            public void execute(JobContext job) throws InterruptedException {
                runs.incrementAndGet();
                go.await();
            }
        };
        jobs.enqueue(5, "blocked", "", 3);
        // lockExpiry 4 s: renewal every 1 s, sweep every 2 s.
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.threads(5).lockExpiry(Duration.ofSeconds(4)),
                List.of(blocked))) {
            Jobs.await("all running", Duration.ofSeconds(30), () -> runs.get() == 5);
            // As after a database outage longer than lockExpiry: every lock of this node has expired.
            jobs.execute("update {s}.job set lock_expires_at = now() - interval '1 minute'");
            Jobs.await("renewed by this node", Duration.ofSeconds(10),
                    () -> jobs.count("select count(*) from {s}.job where lock_expires_at > now()") == 5);
            Thread.sleep(3000); // more sweeps
            assertThat(jobs.count("select count(*) from {s}.job where locked_by = '" + engine.owner() + "'"))
                    .as("still this node's").isEqualTo(5);
            go.countDown();
            Jobs.await("done", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
        }
        assertThat(runs.get()).as("no job ran twice").isEqualTo(5);
    }

    @Test
    void aFailingRecurringTimerStaysOnItsGridAndIsNeverEndedByFailures() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.execute("insert into {s}.job (type, payload, max_attempts, repeat_interval, due_at)"
                + " values ('record', 'fail', 1, interval '2 seconds', date_trunc('second', now()))");
        // One that has failed for ages: its consecutive failures are past any one-off job's
        // counter limit (JobLimits.MAX_COUNTER), at the int's end; still never ended by them.
        jobs.execute("insert into {s}.job (type, payload, max_attempts, repeat_interval, attempts)"
                + " values ('record', 'fail', 1, interval '1 second', 2147483646)");
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s,
                List.of(new RecordingHandler(db, schema, "in-jvm")))) {
            Jobs.await("three failed runs", Duration.ofSeconds(30),
                    () -> jobs.count("select attempts from {s}.job where repeat_interval = interval '2 seconds'") >= 3);
        }
        assertThat(jobs.deadLetters()).isZero();
        assertThat(jobs.count("select attempts from {s}.job where repeat_interval = interval '1 second'"))
                .as("counted up to the int's end and held there").isEqualTo(Integer.MAX_VALUE);
        // Still on its grid: whole seconds, an even number of them after its first slot.
        assertThat(jobs.count("select count(*) from {s}.job where last_error like '%failing as asked%'"
                + " and repeat_interval = interval '2 seconds' and mod((extract(epoch from due_at) - extract(epoch from date_trunc('second', created_at)))::numeric, 2) = 0"
                + " and due_at > now()")).isEqualTo(1);
    }

    /**
     * A recurring timer handed back (here a shutdown cut its run short; also a refused start, no
     * handler on the node) is due again at once, off its grid; its next slots are on the grid
     * all the same. They were counted from the hand-back's time: a daily 02:00 timer interrupted
     * by a rolling deploy ran at 02:30:07 from then on.
     */
    @Test
    void aRecurringTimerHandedBackKeepsItsGrid() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.execute("insert into {s}.job (type, payload, max_attempts, repeat_interval, due_at)"
                + " values ('slot', '', 3, interval '7 seconds', date_trunc('second', now()))");
        CountDownLatch running = new CountDownLatch(1);
        JobHandler slow = Handlers.of("slot", job -> {
            running.countDown();
            Thread.sleep(Duration.ofMinutes(5));
        });
        try (ExecutorEngine leaving = TestNode.start(db, schema, s -> s.shutdownGracePeriod(Duration.ofSeconds(1)),
                List.of(slow))) {
            assertThat(running.await(30, TimeUnit.SECONDS)).as("the timer runs").isTrue();
        }
        assertThat(jobs.count("select count(*) from {s}.job where locked_by is null and attempts = 0"
                + " and due_at <> grid_at and grid_at = date_trunc('second', created_at)"))
                .as("handed back off its grid, at no cost, the grid kept").isEqualTo(1);
        AtomicInteger runs = new AtomicInteger();
        JobHandler quick = Handlers.of("slot", job -> runs.incrementAndGet());
        try (ExecutorEngine staying = TestNode.start(db, schema, s -> s, List.of(quick))) {
            Jobs.await("its next run written", Duration.ofSeconds(30), () -> runs.get() >= 1
                    && jobs.count("select count(*) from {s}.job where locked_by is null and grid_at is null") == 1);
        }
        assertThat(jobs.count("select count(*) from {s}.job where due_at > now()"
                + " and mod((extract(epoch from due_at) - extract(epoch from date_trunc('second', created_at)))::numeric, 7) = 0"))
                .as("its next slot on its grid: a multiple of 7 s after its first").isEqualTo(1);
    }

    @Test
    void aSuspectThatCrashedNodesBeforeRunsAloneOnItsDecisiveRun() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        // Counted under one lock, so a start and the suspect's own are ordered: no other job may
        // be running when the suspect starts, nor start at any time before it ends (it runs for
        // 300 ms, long enough for a free worker to take the queued jobs if the gate let it).
        Object lock = new Object();
        int[] running = {0};
        AtomicBoolean suspectRunning = new AtomicBoolean();
        AtomicInteger besideSuspect = new AtomicInteger();
        AtomicInteger suspectRuns = new AtomicInteger();
        JobHandler probe = new JobHandler() {
            public String type() {
                return "probe";
            }

            public void execute(JobContext job) throws InterruptedException {
                boolean suspect = "suspect".equals(job.payload());
                synchronized (lock) {
                    running[0]++;
                    if (suspect) {
                        suspectRuns.incrementAndGet();
                        suspectRunning.set(true);
                        besideSuspect.addAndGet(running[0] - 1);
                    } else if (suspectRunning.get()) {
                        besideSuspect.incrementAndGet();
                    }
                }
                try {
                    Thread.sleep(suspect ? 300 : 50);
                } finally {
                    synchronized (lock) {
                        running[0]--;
                        if (suspect) {
                            suspectRunning.set(false);
                        }
                    }
                }
            }
        };
        jobs.enqueue(100, "probe", "", 1);
        jobs.execute("insert into {s}.job (type, payload, crashes, suspect) values ('probe', 'suspect', 2, true)");
        jobs.enqueue(100, "probe", "", 1);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.threads(8), List.of(probe))) {
            Jobs.await("done", Duration.ofSeconds(60), () -> jobs.jobsLeft() == 0);
        }
        assertThat(suspectRuns.get()).isEqualTo(1);
        assertThat(besideSuspect.get()).as("other jobs running when the suspect started, or started before it ended")
                .isZero();
    }

    @Test
    void rowsATriggerWillNotLetGoNeverStopTheCompletionPipeline() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        // A user trigger that refuses to delete some rows (a P0001 error, not a data error).
        jobs.execute("create function {s}.keep_cursed() returns trigger language plpgsql as $$ begin"
                + " if old.payload = 'cursed' then raise exception 'cursed rows stay'; end if; return old; end $$");
        jobs.execute("create trigger keep_cursed before delete on {s}.job for each row execute function {s}.keep_cursed()");
        jobs.enqueue(2, NoopHandler.TYPE, "cursed", 1);
        jobs.enqueue(300, NoopHandler.TYPE, "", 1);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s, List.of(new NoopHandler()))) {
            Jobs.await("every other job completed", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 2);
            jobs.enqueue(50, NoopHandler.TYPE, "", 1);
            Jobs.await("the pipeline still flows", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 2);
            assertThat(engine.stuck()).isEmpty();
            // Held, their outcomes written again every 10 s (UnwritableOutcomeTest): let go, they
            // ran again on whichever node swept their lapsed locks.
            assertThat(engine.heldJobs()).as("the node holds the rows whose outcome it could not store").isEqualTo(2);
        }
    }

    /**
     * One held row the database will not update (a trigger that refuses a renewal of it): the
     * renewal was one statement for every lock the node held, so all of them lapsed, every
     * second, and other nodes would sweep and run again the jobs this node was running. Now the
     * others are renewed and only the refused row's lock lapses (another node may sweep it then:
     * there is none here); both jobs run once and complete.
     */
    @Test
    void aRowTheDatabaseWillNotRenewLetsOnlyItsOwnLockLapse() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.execute("create function {s}.no_cursed_renewal() returns trigger language plpgsql as $$ begin"
                + " if new.payload = 'cursed' and old.locked_by is not null and new.locked_by = old.locked_by then"
                + " raise exception 'cursed rows are not renewed'; end if; return new; end $$");
        jobs.execute("create trigger no_cursed_renewal before update on {s}.job for each row execute function {s}.no_cursed_renewal()");
        whileTwoJobsRun(schema, jobs, "cursed", () -> {
            Thread.sleep(6000); // past lockExpiry: only renewals keep a lock
            assertThat(jobs.count("select count(*) from {s}.job where payload = 'fine' and lock_expires_at > now()"))
                    .as("the other job's lock, renewed").isEqualTo(1);
            assertThat(jobs.count("select count(*) from {s}.job where payload = 'cursed' and lock_expires_at < now()"))
                    .as("the refused row's lock, lapsed").isEqualTo(1);
        });
    }

    /**
     * A row another session holds locked (an update by hand in psql, left uncommitted): the
     * renewal was one statement that waited for it until its call timed out, every turn, so
     * every lock of the node lapsed, for other nodes to sweep and run again. Now the renewal skips
     * that row (it stays this node's, its lease not extended) and renews the others.
     */
    @Test
    void aRowAnotherSessionHoldsLockedLetsOnlyItsOwnLockLapse() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        whileTwoJobsRun(schema, jobs, "locked by hand", () -> {
            try (java.sql.Connection admin = db.getConnection()) {
                admin.setAutoCommit(false);
                try (var st = admin.createStatement()) {
                    st.execute("select id from " + schema + ".job where payload = 'locked by hand' for update");
                }
                Thread.sleep(6000); // past lockExpiry: only renewals keep a lock
                assertThat(jobs.count("select count(*) from {s}.job where payload = 'fine' and lock_expires_at > now()"))
                        .as("the other job's lock, renewed").isEqualTo(1);
                assertThat(jobs.count("select count(*) from {s}.job where payload = 'locked by hand'"
                        + " and locked_by is not null")).as("the busy row, still this node's").isEqualTo(1);
                admin.rollback();
            }
            Thread.sleep(2000); // a renewal reaches the busy row again
            assertThat(jobs.count("select count(*) from {s}.job where lock_expires_at > now()"))
                    .as("both locks renewed once the session let go").isEqualTo(2);
        });
    }

    /** What a test does while its two jobs run. */
    private interface WhileRunning {
        void run() throws Exception;
    }

    /**
     * Two jobs of type "held" (payloads {@code first}, then 'fine') running on one node with a
     * 4 s lockExpiry until {@code check} returns; then both complete, each run once, and none is
     * dead-lettered.
     */
    private static void whileTwoJobsRun(String schema, Jobs jobs, String first, WhileRunning check) throws Exception {
        CountDownLatch running = new CountDownLatch(2);
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        JobHandler held = Handlers.of("held", job -> {
            runs.incrementAndGet();
            running.countDown();
            go.await();
        });
        jobs.execute("insert into {s}.job (type, payload) values ('held', '" + first + "'), ('held', 'fine')");
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.lockExpiry(Duration.ofSeconds(4)), List.of(held))) {
            assertThat(running.await(30, TimeUnit.SECONDS)).as("both jobs running").isTrue();
            try {
                check.run();
            } finally {
                go.countDown();
            }
            Jobs.await("both jobs completed", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
            assertThat(engine.stuck()).isEmpty();
        }
        assertThat(runs.get()).as("runs").isEqualTo(2);
        assertThat(jobs.deadLetters()).isZero();
    }

    /**
     * A start mark the database refuses (here a trigger refuses one suspect's) is that row's
     * problem: the starter wrote the whole batch again and again, so every later suspect and
     * large payload on the node waited for good while its loop still beat. Now the batch is
     * written row by row, the refused row is dead-lettered with the reason, the others run.
     */
    @Test
    void aStartTheDatabaseRefusesIsDeadLetteredWithoutHoldingUpTheOthers() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        // One row a trigger refuses for its own sake (P0001: dead-lettered), one it refuses with
        // the server's kind of error (XX001, as a corrupt page: no row to blame, handed back).
        jobs.execute("create function {s}.no_cursed_start() returns trigger language plpgsql as $$ begin"
                + " if new.started_at is not null and old.started_at is null then"
                + " if new.payload = 'cursed' then raise exception 'cursed rows never start'; end if;"
                + " if new.payload = 'corrupt' then raise exception 'page is corrupt' using errcode = 'XX001'; end if;"
                + " end if; return new; end $$");
        jobs.execute("create trigger no_cursed_start before update on {s}.job for each row execute function {s}.no_cursed_start()");
        // Suspects (a node died holding them) start with a start mark, in batches.
        jobs.execute("insert into {s}.job (type, payload, suspect) values ('noop', 'cursed', true), ('noop', 'corrupt', true)");
        jobs.execute("insert into {s}.job (type, payload, suspect) select 'noop', 'fine', true from generate_series(1, 20)");
        jobs.enqueue(300, NoopHandler.TYPE, "", 1);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.threads(4), List.of(new NoopHandler()))) {
            Jobs.await("every job handled", Duration.ofSeconds(30), () -> jobs.count(
                    "select count(*) from {s}.job where payload <> 'corrupt' or locked_by is not null") == 0);
            jobs.execute("insert into {s}.job (type, payload, suspect) select 'noop', 'later', true from generate_series(1, 5)");
            Jobs.await("later suspects still start", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 1);
            assertThat(engine.stuck()).isEmpty();
        }
        assertThat(jobs.count("select count(*) from {s}.dead_letter")).as("only the cursed one").isEqualTo(1);
        assertThat(jobs.count("select count(*) from {s}.dead_letter where payload = 'cursed' and attempts = 0 and error like"
                + " 'the database refused to record its start: ERROR: cursed rows never start%(SQLState P0001)'")).isEqualTo(1);
        assertThat(jobs.count("select count(*) from {s}.job where payload = 'corrupt' and attempts = 0"
                + " and due_at > now() + interval '30 seconds' and last_error like '%page is corrupt%(SQLState XX001); handed back'"))
                .as("handed back for later, uncharged").isEqualTo(1);
    }

    @Test
    void anOutcomeTheDatabaseRefusesIsDeadLetteredWithoutHoldingUpTheOthers() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        JobHandler timer = new JobHandler() {
            public String type() {
                return "timer";
            }

            public void execute(JobContext job) throws InterruptedException {
                started.countDown();
                go.await();
            }
        };
        jobs.execute("insert into {s}.job (type, repeat_interval) values ('timer', interval '1 minute')");
        jobs.enqueue(50, NoopHandler.TYPE, "", 1);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s, List.of(timer, new NoopHandler()))) {
            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            // While it runs, its row changes so that its next slot is past the end of time.
            jobs.execute("update {s}.job set repeat_interval = interval '1000000 years' where type = 'timer'");
            go.countDown();
            Jobs.await("everything written", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
            jobs.enqueue(50, NoopHandler.TYPE, "", 1);
            Jobs.await("the pipeline still flows", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
        }
        assertThat(jobs.count("select count(*) from {s}.dead_letter where type = 'timer'"
                + " and error like 'its outcome could not be stored (NEXT_SLOT): %timestamp out of range%'")).isEqualTo(1);
    }

    /**
     * A suspect's decisive run must be alone on its node; every job taken meanwhile waits behind
     * it. Taken beside a long job, it held up all of its node's work for as long as that job ran,
     * while the node looked healthy and renewed its locks. It waits at most SOLO_WAIT (30 s),
     * then is handed back for a node that can run it alone, and the node's other jobs run.
     */
    @Test
    void aSuspectThatCannotRunAloneSoonIsHandedBackAndTheNodesOtherJobsRun() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(1, RecordingHandler.TYPE, "90000", 1); // runs a minute and a half
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.threads(4).queueSize(64).acquirePageSize(32),
                List.of(new RecordingHandler(db, schema, "n")))) {
            Jobs.await("the long job started", Duration.ofSeconds(10), () -> jobs.executions() == 1);
            // Two node deaths already blamed on it (maxCrashes 3): its next run is its decisive one, alone.
            jobs.execute("insert into {s}.job (type, payload, suspect, crashes) values ('record', 'suspect', true, 2)");
            Thread.sleep(500);
            jobs.enqueue(50, RecordingHandler.TYPE, "", 3);
            Jobs.await("the 50 short jobs ran beside the long one", Duration.ofSeconds(60), () -> jobs.executions() >= 51);
            Jobs.await("the suspect, handed back unrun and uncharged", Duration.ofSeconds(15), () -> jobs.count(
                    "select count(*) from {s}.job where payload = 'suspect' and suspect and crashes = 2 and deferrals = 0"
                    + " and locked_by is null and due_at > now() and attempts = 0 and last_error like '%runs alone on a node%'") == 1);
        }
    }
}
