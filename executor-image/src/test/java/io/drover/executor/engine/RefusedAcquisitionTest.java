package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.acquire.LockMode;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.RecordingHandler;
import io.drover.executor.testing.TestDatabase;
import io.drover.executor.testing.TestNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A due job the database will not let any node lock (a user's trigger or constraint on the job
 * table). Its page was one statement, and the row, due and unlocked for good and the oldest,
 * headed every page of every node in every lock mode: until 2026-11-28 no node acquired
 * anything again, and health said only that acquisition failed. Now the page is taken by halves
 * around the row, which each node leaves out of its acquisition for a while (RefusedRowSearch).
 * Two nodes, each job counted by the recording handler's table.
 */
class RefusedAcquisitionTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private static final int JOBS = 2000;
    private static final int PAGE = 32;

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aDueJobTheDatabaseWillNotLockHoldsUpNoOtherJob(LockMode mode) throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.execute("insert into {s}.job (type, payload, due_at) values ('" + RecordingHandler.TYPE
                + "', 'cursed', now() - interval '1 hour')");
        refuseLocking(jobs, "old.payload = 'cursed'");
        jobs.enqueue(JOBS, RecordingHandler.TYPE, "", 3);
        MeterRegistry a = new SimpleMeterRegistry();
        MeterRegistry b = new SimpleMeterRegistry();
        try (ExecutorEngine nodeA = node(schema, "a", mode, a); ExecutorEngine nodeB = node(schema, "b", mode, b)) {
            Jobs.await("every job but the refused one done (" + mode + ")", Duration.ofSeconds(60),
                    () -> jobs.jobsLeft() == 1);
            assertThat(errors(a) + errors(b)).as("failed acquisitions").isZero();
            // Idle now: the refused row, overdue for good, must not end every idle wait at once
            // (a cycle every 5 ms, ~400 in 2 s per node); acquireInterval is 1 s.
            long before = cycles(a) + cycles(b);
            Thread.sleep(2000);
            assertThat(cycles(a) + cycles(b) - before).as("acquisition cycles of two idle nodes in 2 s").isLessThan(40);
            assertThat(nodeA.acquiring(Duration.ofSeconds(1)) && nodeB.acquiring(Duration.ofSeconds(1))).isTrue();
            assertThat(nodeA.problem()).isEmpty();
        }
        assertThat(jobs.executions()).as("executions").isEqualTo(JOBS);
        assertThat(jobs.distinctExecuted()).as("distinct jobs executed").isEqualTo(JOBS);
        assertThat(jobs.count("select count(*) from {s}.job where payload = 'cursed' and locked_by is null and attempts = 0"))
                .as("the refused job: due, unlocked, never charged").isEqualTo(1);
        assertThat(jobs.deadLetters()).as("dead letters (it never ran)").isZero();
    }

    /**
     * Many refused rows: a run at the head of the backlog longer than a page (each search isolates
     * at least one row, depth first, however many follow), then one job in twenty. Every other
     * job runs once.
     */
    @ParameterizedTest
    @EnumSource(LockMode.class)
    void manyRefusedRowsAreLeftOutAndEveryOtherJobRuns(LockMode mode) throws Exception {
        manyRefused(mode, 100, PAGE);
    }

    /**
     * A run of refused rows much longer than what one search isolates at the default page size
     * (64 failed statements isolate about 8 rows of a page of 256 refused whole): the next page
     * is taken past it each cycle.
     */
    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aRunOfRefusedRowsLongerThanASearchCoversHoldsUpNoOtherJob(LockMode mode) throws Exception {
        manyRefused(mode, 600, 256);
    }

    private void manyRefused(LockMode mode, int run, int page) throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.execute("insert into {s}.job (type, payload, due_at) select '" + RecordingHandler.TYPE
                + "', 'cursed', now() - interval '1 hour' from generate_series(1, " + run + ")");
        jobs.execute("insert into {s}.job (type, payload) select '" + RecordingHandler.TYPE
                + "', case when g % 20 = 0 then 'cursed' else '' end from generate_series(1, 1000) g");
        refuseLocking(jobs, "old.payload = 'cursed'");
        MeterRegistry a = new SimpleMeterRegistry();
        MeterRegistry b = new SimpleMeterRegistry();
        try (ExecutorEngine nodeA = node(schema, "a", mode, a, page); ExecutorEngine nodeB = node(schema, "b", mode, b, page)) {
            Jobs.await("every job but the " + (run + 50) + " refused done (" + mode + ")", Duration.ofSeconds(60),
                    () -> jobs.jobsLeft() == run + 50);
        }
        assertThat(jobs.executions()).as("executions").isEqualTo(950);
        assertThat(jobs.distinctExecuted()).as("distinct jobs executed").isEqualTo(950);
        assertThat(jobs.count("select count(*) from {s}.job where payload = 'cursed' and locked_by is null and attempts = 0"))
                .as("the refused jobs: due, unlocked, never charged").isEqualTo(run + 50);
        assertThat(jobs.deadLetters()).isZero();
    }

    /**
     * A refusal of every row (here a trigger refuses every lock) shows no row's own refusal: the
     * acquisition fails as before, visibly, at the loop's error backoff; the rows its searches
     * isolated are left out for a minute (at most a page per failed cycle), not the backlog, so
     * once the refusal is lifted the rest run at once.
     */
    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aRefusalOfEveryRowFailsTheAcquisitionAndLeavesOutNoMoreThanAPagePerCycle(LockMode mode) throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        refuseLocking(jobs, "true");
        jobs.enqueue(2000, RecordingHandler.TYPE, "", 3);
        MeterRegistry a = new SimpleMeterRegistry();
        MeterRegistry b = new SimpleMeterRegistry();
        long bound;
        try (ExecutorEngine nodeA = node(schema, "a", mode, a); ExecutorEngine nodeB = node(schema, "b", mode, b)) {
            Jobs.await("acquisition failing on both nodes", Duration.ofSeconds(30), () -> errors(a) >= 3 && errors(b) >= 3);
            assertThat(nodeA.problem()).as("why the node cannot take jobs").isPresent();
            assertThat(nodeB.problem()).as("why the node cannot take jobs").isPresent();
            assertThat(jobs.executions()).isZero();
            jobs.execute("drop trigger refuse_locking on {s}.job");
            // A page per failed cycle, and one more per node for a search the drop cut short.
            bound = PAGE * (errors(a) + errors(b) + 2);
            Jobs.await("all but the rows left out done", Duration.ofSeconds(30),
                    () -> jobs.executions() > 0 && jobs.jobsLeft() <= bound);
            Thread.sleep(500);
        }
        long left = jobs.jobsLeft();
        assertThat(left).as("rows left out: at most a page per failed cycle").isBetween(1L, bound);
        assertThat(jobs.executions()).as("executions").isEqualTo(2000 - left);
        assertThat(jobs.count("select count(*) from {s}.job where locked_by is null and attempts = 0"))
                .as("left out: unlocked, never charged").isEqualTo(left);
        assertThat(jobs.deadLetters()).isZero();
    }

    /** A trigger that refuses to lock the rows matching {@code condition} (over {@code old}). */
    private static void refuseLocking(Jobs jobs, String condition) {
        jobs.execute("create function {s}.refuse_locking() returns trigger language plpgsql as $$ begin"
                + " if new.locked_by is not null and old.locked_by is null and " + condition
                + " then raise exception 'job % is not to be locked', old.id; end if; return new; end $$");
        jobs.execute("create trigger refuse_locking before update on {s}.job for each row execute function {s}.refuse_locking()");
    }

    private static ExecutorEngine node(String schema, String name, LockMode mode, MeterRegistry registry) {
        return node(schema, name, mode, registry, PAGE);
    }

    private static ExecutorEngine node(String schema, String name, LockMode mode, MeterRegistry registry, int page) {
        return TestNode.start(db, schema, s -> s.nodeName(name).lockMode(mode).threads(4).queueSize(2 * page)
                        .acquirePageSize(page), List.of(new RecordingHandler(db, schema, name)), registry);
    }

    private static long errors(MeterRegistry registry) {
        return (long) registry.get("drover.acquisition.errors").counter().count();
    }

    private static long cycles(MeterRegistry registry) {
        return registry.get("drover.acquisition").timer().count();
    }
}
