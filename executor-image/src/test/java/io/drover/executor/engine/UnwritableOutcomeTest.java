package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.testing.Handlers;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import io.drover.executor.testing.TestNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An outcome the database refuses to store at all: the job's handler records an invoice that
 * references the job's row (a foreign key onto the job table), so neither the job's delete
 * (done) nor its move to dead letters (a delete too) is allowed. Before, its lock was let go:
 * it lapsed, the sweep counted a crash, and the job ran again, every run refused alike, until it
 * was poison (maxCrashes + 1 runs of a job that had succeeded). Now the node keeps it locked and
 * writes its outcome again every {@link CompletionLoop#UNWRITABLE_RETRY}, until the database takes it.
 */
class UnwritableOutcomeTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @Test
    void anOutcomeTheDatabaseRefusesToStoreIsHeldNotRunAgainAndWrittenOnceItCan() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.execute("create table {s}.invoice (job_id bigint references {s}.job (id))");
        AtomicInteger runs = new AtomicInteger();
        JobHandler invoicing = Handlers.of("invoicing", job -> {
            runs.incrementAndGet();
            try (Connection c = db.getConnection();
                 PreparedStatement insert = c.prepareStatement("insert into " + schema + ".invoice values (?)")) {
                insert.setLong(1, job.id());
                insert.executeUpdate();
            }
        });
        jobs.enqueue(1, "invoicing", "", 1);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Duration lockExpiry = Duration.ofSeconds(4);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.lockExpiry(lockExpiry), List.of(invoicing), registry)) {
            Jobs.await("the outcome held as unwritable", Duration.ofSeconds(30),
                    () -> registry.get("drover.completion.unwritable").gauge().value() == 1);
            // Three lock expiries: renewals, sweeps and a write again (every 10 s) in between.
            Thread.sleep(lockExpiry.multipliedBy(3).toMillis());
            assertThat(runs.get()).as("runs of a job whose outcome the database refused").isEqualTo(1);
            // Its lease renewed, not only its owner kept: the node's own sweep skips the rows it
            // holds, so a lapsed lease shows only here (another node would sweep it and run it again).
            assertThat(jobs.count("select count(*) from {s}.job where locked_by = '" + engine.owner() + "'"
                    + " and lock_expires_at > now()"))
                    .as("the job still locked by the node that ran it, its lease renewed").isEqualTo(1);
            assertThat(jobs.deadLetters()).isZero();
            assertThat(engine.stuck()).isEmpty();

            jobs.execute("delete from {s}.invoice"); // the application lets go of the row
            Jobs.await("the outcome written once the database takes it", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
            Jobs.await("nothing held any more", Duration.ofSeconds(5),
                    () -> registry.get("drover.completion.unwritable").gauge().value() == 0);
        }
        assertThat(runs.get()).isEqualTo(1);
        assertThat(jobs.deadLetters()).isZero();
    }

    /**
     * Refused in a way the writer cannot tell from the server's trouble (SQLState 42501 from a
     * trigger: taken for the row's because the database took the rest of its batch), the held
     * outcome is tried again alone, once per try: retried within the shared pipeline, alone it
     * looked like the server's trouble and was retried for good, holding up every later outcome
     * until liveness restarted the node.
     */
    @Test
    void aHeldOutcomeTriedAgainAloneHoldsUpNoOtherOutcome() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.execute("create function {s}.guard() returns trigger language plpgsql as $$ begin"
                + " if old.type = 'guarded' then raise exception 'not yours' using errcode = '42501'; end if;"
                + " if old.type = 'slow' then perform pg_sleep(1); end if; return old; end $$");
        jobs.execute("create trigger guard before delete on {s}.job for each row execute function {s}.guard()");
        AtomicInteger guardedRuns = new AtomicInteger();
        // The slow one's delete holds the completion loop for a second: the guarded outcome and a
        // companion's, made meanwhile, go in the next batch together.
        JobHandler slow = Handlers.of("slow", job -> { });
        JobHandler guarded = Handlers.of("guarded", job -> {
            guardedRuns.incrementAndGet();
            Thread.sleep(300);
        });
        JobHandler companion = Handlers.of("companion", job -> Thread.sleep(300));
        jobs.enqueue(1, "slow", "", 1);
        jobs.enqueue(1, "guarded", "", 1);
        jobs.enqueue(1, "companion", "", 1);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.threads(3).lockExpiry(Duration.ofSeconds(4)),
                List.of(slow, guarded, companion, new io.drover.executor.handler.NoopHandler()), registry)) {
            Jobs.await("the guarded outcome held", Duration.ofSeconds(30),
                    () -> registry.get("drover.completion.unwritable").gauge().value() == 1);
            Thread.sleep(CompletionLoop.UNWRITABLE_RETRY.plusSeconds(2).toMillis()); // tried again, alone
            jobs.enqueue(50, io.drover.executor.handler.NoopHandler.TYPE, "", 1);
            Jobs.await("later outcomes written", Duration.ofSeconds(15),
                    () -> jobs.count("select count(*) from {s}.job where type <> 'guarded'") == 0);
            assertThat(engine.stuck()).isEmpty();
            assertThat(registry.get("drover.completion.unwritable").gauge().value()).isEqualTo(1);
        }
        assertThat(guardedRuns.get()).as("runs of the guarded job").isEqualTo(1);
        assertThat(jobs.deadLetters()).isZero();
    }

    /**
     * Refused alone in its batch with a SQLState that could be the server's (42501 from a
     * trigger), the outcome is told from the server's trouble by a write that touches no row: the
     * database takes it, so the refusal is the row's, and the outcome is held like any the
     * database will not store. Before, alone, it was retried for good, holding up every later
     * outcome until liveness restarted the node, and the job ran again after each restart.
     */
    @Test
    void anOutcomeRefusedAloneWithAStateTheServerCouldRaiseIsHeldAndTheNodeGoesOn() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.execute("create function {s}.guard() returns trigger language plpgsql as $$ begin"
                + " if old.type = 'guarded' then raise exception 'not yours' using errcode = '42501'; end if;"
                + " return old; end $$");
        jobs.execute("create trigger guard before delete on {s}.job for each row execute function {s}.guard()");
        AtomicInteger guardedRuns = new AtomicInteger();
        JobHandler guarded = Handlers.of("guarded", job -> guardedRuns.incrementAndGet());
        jobs.enqueue(1, "guarded", "", 1);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.lockExpiry(Duration.ofSeconds(4)),
                List.of(guarded, new io.drover.executor.handler.NoopHandler()), registry)) {
            Jobs.await("the guarded outcome held", Duration.ofSeconds(30),
                    () -> registry.get("drover.completion.unwritable").gauge().value() == 1);
            jobs.enqueue(50, io.drover.executor.handler.NoopHandler.TYPE, "", 1);
            Jobs.await("later outcomes written", Duration.ofSeconds(15),
                    () -> jobs.count("select count(*) from {s}.job where type <> 'guarded'") == 0);
            assertThat(engine.stuck()).isEmpty();
        }
        assertThat(guardedRuns.get()).as("runs of the guarded job").isEqualTo(1);
        assertThat(jobs.deadLetters()).isZero();
    }

    /**
     * Every outcome refused alike (a storage fault of the job table fails every row's delete, as
     * SQLState 58030), while writes that touch no row pass: the node holds the outcomes, takes no
     * more jobs once it holds as many as it may (queueSize 4 here), and liveness says so, so the
     * pod is restarted rather than left idle with health green.
     */
    @Test
    void aNodeHoldingAsManyRefusedOutcomesAsItMayTakesNoMoreJobsAndSaysSo() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.execute("create function {s}.io_error() returns trigger language plpgsql as $$ begin"
                + " raise exception 'could not write block' using errcode = '58030'; end $$");
        jobs.execute("create trigger io_error before delete on {s}.job for each row execute function {s}.io_error()");
        jobs.enqueue(20, io.drover.executor.testing.RecordingHandler.TYPE, "", 1);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.threads(2).queueSize(4).acquirePageSize(4)
                .completionBatchSize(4).lockExpiry(Duration.ofSeconds(4)),
                List.of(new io.drover.executor.testing.RecordingHandler(db, schema, "n")), registry)) {
            Jobs.await("liveness says the node holds as many refused outcomes as it may", Duration.ofSeconds(30),
                    () -> engine.stuck().stream().anyMatch(p -> p.contains("outcomes the database refuses to store")));
            long held = (long) registry.get("drover.completion.unwritable").gauge().value();
            Thread.sleep(2000);
            assertThat(jobs.executions()).as("no job taken past the bound").isLessThanOrEqualTo(held + 2 + 4);
            jobs.execute("drop trigger io_error on {s}.job"); // the storage recovers
            Jobs.await("every job done once the database takes the outcomes", Duration.ofSeconds(60),
                    () -> jobs.jobsLeft() == 0);
            assertThat(engine.stuck()).isEmpty();
        }
        assertThat(jobs.deadLetters()).isZero();
    }

    /**
     * A database that takes no outcome at all while it answers (here a statement trigger refuses
     * every delete from the job table, the writer's probes too, as a revoked grant would) fails liveness after stallTimeout,
     * naming the problem in a status's words and its SQLState: never the database's own message
     * (a trigger's text, a constraint's detail), which anyone who reaches the pod can read.
     */
    @Test
    void outcomesNoneOfWhichCanBeWrittenFailLivenessWithoutTheDatabasesText() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.execute("create function {s}.refuse() returns trigger language plpgsql as $$ begin"
                + " raise exception 'internal detail: vault password hunter2' using errcode = '42501'; end $$");
        jobs.execute("create trigger refuse before delete on {s}.job for each statement execute function {s}.refuse()");
        jobs.enqueue(3, io.drover.executor.handler.NoopHandler.TYPE, "", 1);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ExecutorEngine engine = TestNode.start(db, schema,
                s -> s.lockExpiry(Duration.ofSeconds(4)).globalLockWaitTime(Duration.ofSeconds(1)),
                List.of(new io.drover.executor.handler.NoopHandler()), registry)) {
            Duration stall = engine.settings().stallTimeout();
            Jobs.await("liveness names the unwritable outcomes", stall.plusSeconds(20),
                    () -> engine.stuck().stream().anyMatch(p -> p.startsWith("job outcomes could not be written for")));
            assertThat(String.join("; ", engine.stuck())).contains("while the database answers", "SQLState 42501")
                    .doesNotContain("hunter2", "internal detail");
            jobs.execute("drop trigger refuse on {s}.job");
            Jobs.await("the outcomes written once the database takes them", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
        }
        assertThat(jobs.deadLetters()).isZero();
    }
}
