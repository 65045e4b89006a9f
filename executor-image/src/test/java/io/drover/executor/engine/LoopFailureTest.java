package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.testing.Handlers;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import io.drover.executor.testing.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An engine loop that dies of an Error it did not expect (a bug, a StackOverflowError in a
 * driver call): the node starts no job from then on and liveness says why at once. Before, the
 * completion loop's thread died quietly and workers went on starting jobs whose outcomes nothing
 * wrote, for stallTimeout (210 s by default), all of them to run again after the restart; and a
 * dead renewal loop let running jobs' locks lapse while the node kept starting more.
 */
class LoopFailureTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @ParameterizedTest(name = "{1}")
    @CsvSource({"drover-completion-, completion", "drover-renewer-, lock renewal", "drover-acquirer-, acquisition",
            "drover-sweeper-, expired lock sweep"})
    void aLoopThatEndsOnAnUnexpectedErrorStopsTheNodeStartingJobsAndFailsLivenessAtOnce(String thread, String loop)
            throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        AtomicInteger runs = new AtomicInteger();
        JobHandler counted = Handlers.of("counted", job -> {
            runs.incrementAndGet();
            Thread.sleep(1500); // held through a renewal (every second at lockExpiry 4s)
        });
        jobs.enqueue(1, "counted", "", 3);
        AtomicBoolean armed = new AtomicBoolean(true);
        try (ExecutorEngine engine = TestNode.start(failingOnce(db, thread, armed), schema,
                s -> s.lockExpiry(Duration.ofSeconds(4)), List.of(counted))) {
            Jobs.await("the " + loop + " loop ended, and liveness says so", Duration.ofSeconds(30),
                    () -> engine.stuck().stream().anyMatch(p -> p.startsWith(loop + " loop ended unexpectedly:"
                            + " java.lang.StackOverflowError: on purpose")));
            int before = runs.get();
            jobs.enqueue(5, "counted", "", 3);
            Thread.sleep(3000); // nothing to await: the jobs must not start
            assertThat(runs.get()).as("jobs started after the " + loop + " loop ended").isEqualTo(before);
        }
    }

    /**
     * A loop whose database call never returns (a driver wait no timeout covers): its heartbeat
     * falls silent, and liveness names the loop once it has been quiet for stallTimeout, so the
     * pod is restarted rather than holding a node that acquires nothing while it looks healthy.
     * When the call returns, the loop beats again and liveness clears.
     */
    @ParameterizedTest(name = "{1}")
    @CsvSource({"drover-acquirer-, acquisition", "drover-completion-, completion"})
    void aLoopHungInADatabaseCallFailsLivenessAfterStallTimeoutAndRecoversWhenItReturns(String thread, String loop)
            throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean(false);
        AtomicBoolean hung = new AtomicBoolean();
        DataSource hanging = intercepted(db, thread, armed, () -> {
            hung.set(true);
            release.await();
        });
        try (ExecutorEngine engine = TestNode.start(hanging, schema,
                s -> s.lockExpiry(Duration.ofSeconds(4)).globalLockWaitTime(Duration.ofSeconds(1)), List.of(Handlers.of("noop", job -> { })))) {
            Duration stall = engine.settings().stallTimeout();
            jobs.enqueue(3, "noop", "", 3);
            Jobs.await("the first jobs done", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
            armed.set(true);
            jobs.enqueue(1, "noop", "", 3); // the completion loop's next batch needs a connection
            Jobs.await("the " + loop + " loop hung", Duration.ofSeconds(30), hung::get);
            assertThat(engine.stuck()).as("liveness before stallTimeout").isEmpty();
            Jobs.await("liveness names the silent " + loop + " loop", stall.plusSeconds(15),
                    () -> engine.stuck().stream().anyMatch(p -> p.startsWith(loop + " loop made no progress for")));
            release.countDown();
            Jobs.await("liveness clears once the call returns", Duration.ofSeconds(30), () -> engine.stuck().isEmpty());
            Jobs.await("the waiting job done", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
        } finally {
            release.countDown();
        }
    }

    /**
     * The idle look at the next due time fails once, after a partial page left the queue without
     * room for another: no acquisition runs while the node works through its queue, so that
     * failure stayed the acquisition's last word and readiness went down after 30 s, for as long
     * as the jobs ran, the database answering all along. It is logged, not an acquisition failure.
     */
    @Test
    void aFailedLookAtTheNextDueTimeDoesNotMakeABusyNodeUnready() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        JobHandler held = Handlers.of("held", job -> {
            running.incrementAndGet();
            go.await();
        });
        AtomicBoolean failedOnce = new AtomicBoolean();
        // The idle look that follows the page that took the jobs (they are locked by then) fails.
        DataSource failingIdle = intercepted(db, () -> !failedOnce.get() && StackWalker.getInstance().walk(
                        frames -> frames.anyMatch(f -> f.getClassName().endsWith("AcquisitionLoop")
                                && f.getMethodName().equals("idle")))
                        && jobs.count("select count(*) from {s}.job where locked_by is not null") > 0
                        && failedOnce.compareAndSet(false, true),
                () -> {
                    throw new java.sql.SQLException("on purpose", "08006");
                });
        try (ExecutorEngine engine = TestNode.start(failingIdle, schema,
                s -> s.threads(1).queueSize(8).acquirePageSize(8).acquireInterval(Duration.ofMillis(500)), List.of(held))) {
            Thread.sleep(3000); // past the second look that the start's wake-up asks for
            // Inserted without their notification (triggers off for this transaction), so that the
            // loop finds them on its own and idles after the page: a wake-up would have it look
            // again first. A page of 8 takes the 6 jobs (a partial page); one runs, 5 wait in the
            // queue of 8: 3 free slots, fewer than the 4 a page needs. No acquisition until they end.
            jobs.execute("begin; set local session_replication_role = replica;"
                    + " insert into {s}.job (type, payload) select 'held', '' from generate_series(1, 6); commit");
            Jobs.await("the idle look failed", Duration.ofSeconds(30), failedOnce::get);
            Thread.sleep(35_000); // past the 30 s readiness allows an acquisition to fail for
            assertThat(running.get()).as("jobs running").isEqualTo(1);
            assertThat(engine.acquiring(Duration.ofSeconds(30))).as("acquisition healthy (readiness)").isTrue();
            go.countDown();
            Jobs.await("the jobs done", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
        } finally {
            go.countDown();
        }
    }

    /** The pool, whose connection the named loop's thread gets an Error for, once. */
    private static DataSource failingOnce(DataSource pool, String threadPrefix, AtomicBoolean armed) {
        return intercepted(pool, threadPrefix, armed, () -> {
            throw new StackOverflowError("on purpose");
        });
    }

    interface Interception {
        void run() throws Exception;
    }

    /** The pool, whose next getConnection on the named loop's thread, once armed, runs {@code what} first. */
    private static DataSource intercepted(DataSource pool, String threadPrefix, AtomicBoolean armed, Interception what) {
        return intercepted(pool, () -> Thread.currentThread().getName().startsWith(threadPrefix)
                && armed.compareAndSet(true, false), what);
    }

    /** The pool, whose getConnection runs {@code what} first whenever {@code when} says so (asked at each call). */
    static DataSource intercepted(DataSource pool, java.util.function.BooleanSupplier when, Interception what) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[]{DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && when.getAsBoolean()) {
                        what.run();
                    }
                    try {
                        return method.invoke(pool, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
