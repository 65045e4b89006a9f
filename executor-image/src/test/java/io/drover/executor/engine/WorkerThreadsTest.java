package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.handler.HandlerRegistry;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.handler.NoopHandler;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.testing.Handlers;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Worker threads the JVM cannot start (OutOfMemoryError "unable to create native thread": a
 * container's pids limit, native memory). Before, the engine's start threw, and a replacement
 * for a worker given up in a hung handler was lost without a word: the node worked on at a
 * fraction of its threads (or none) with liveness UP. Now a worker that cannot be started is
 * counted missing and tried again every turn of the timeout watch, and liveness says so when the
 * pool has no worker, or has been short of workers for stallTimeout.
 */
class WorkerThreadsTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private static final String REFUSED = "java.lang.OutOfMemoryError: unable to create native thread: on purpose";

    /** The JVM's thread factory, refusing every thread after the first {@code allowed} while {@code refusing}. */
    private static ThreadFactory refusing(int allowed, AtomicBoolean refusing) {
        ThreadFactory real = Thread.ofPlatform().name("test-worker-", 0).factory();
        AtomicInteger made = new AtomicInteger();
        return r -> {
            if (refusing.get() && made.get() >= allowed) {
                throw new OutOfMemoryError("unable to create native thread: on purpose");
            }
            made.incrementAndGet();
            return real.newThread(r);
        };
    }

    private static ExecutorEngine start(String schema, ThreadFactory workerThreads, List<JobHandler> handlers) {
        ExecutorSettings s = ExecutorSettings.builder().nodeName("in-jvm").schema(schema).threads(2)
                .lockExpiry(Duration.ofSeconds(4)).globalLockWaitTime(Duration.ofSeconds(1)).build();
        ExecutorEngine engine = new ExecutorEngine(s, db, HandlerRegistry.of(handlers),
                new ExecutorMetrics(new SimpleMeterRegistry()), workerThreads);
        engine.start();
        return engine;
    }

    /** Two jobs that each finish only while the other runs too: both threads are working. */
    private static JobHandler pair(CountDownLatch both) {
        return Handlers.of("pair", job -> {
            both.countDown();
            if (!both.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the other of the pair never ran beside this one");
            }
        });
    }

    @Test
    void aPoolShortOfAWorkerWorksOnSaysSoAfterStallTimeoutAndStartsItWhenTheJvmCan() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        AtomicBoolean refusing = new AtomicBoolean(true);
        CountDownLatch both = new CountDownLatch(2);
        try (ExecutorEngine engine = start(schema, refusing(1, refusing), List.of(new NoopHandler(), pair(both)))) {
            jobs.enqueue(20, NoopHandler.TYPE, "", 1);
            Jobs.await("the node works on with one worker", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
            assertThat(engine.stuck()).as("short of one worker for less than stallTimeout").isEmpty();

            Duration stallTimeout = engine.settings().stallTimeout();
            Jobs.await("liveness says the pool is short", stallTimeout.plusSeconds(15), () -> !engine.stuck().isEmpty());
            assertThat(engine.stuck()).singleElement().asString()
                    .startsWith("1 of 2 worker threads could not be started for ").endsWith(" s: " + REFUSED);

            refusing.set(false);
            Jobs.await("the missing worker started", Duration.ofSeconds(10), () -> engine.stuck().isEmpty());
            jobs.enqueue(2, "pair", "", 1);
            Jobs.await("two jobs ran side by side", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
        }
        assertThat(jobs.deadLetters()).isZero();
    }

    @Test
    void aNodeThatCanStartNoWorkerSaysSoAtOnceAndRunsItsJobsWhenItCan() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        AtomicBoolean refusing = new AtomicBoolean(true);
        CountDownLatch both = new CountDownLatch(2);
        jobs.enqueue(2, "pair", "", 1);
        try (ExecutorEngine engine = start(schema, refusing(0, refusing), List.of(pair(both)))) {
            Jobs.await("liveness says no worker runs", Duration.ofSeconds(5), () -> !engine.stuck().isEmpty());
            assertThat(engine.stuck()).containsExactly("no worker thread could be started: " + REFUSED);
            Thread.sleep(1000);
            assertThat(both.getCount()).as("runs with no worker").isEqualTo(2);

            refusing.set(false);
            Jobs.await("both jobs ran side by side once the workers started", Duration.ofSeconds(30),
                    () -> jobs.jobsLeft() == 0);
            assertThat(engine.stuck()).isEmpty();
        }
        assertThat(jobs.deadLetters()).isZero();
    }
}
