package io.drover.executor.engine;

import io.drover.executor.store.AcquiredJob;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A bounded queue of {@code queueSize} in front of {@code threads} workers.
 *
 * <p>The acquirer reserves queue slots before it acquires, so a page it locked always fits:
 * nothing is ever rejected, dropped or run on the acquiring thread (a caller-runs dispatcher
 * stops acquiring while it executes and starves every idle worker). A worker frees a slot
 * as soon as it takes a job, which is what wakes a waiting acquirer.
 */
final class WorkerPool {
    private final BlockingQueue<AcquiredJob> queue;
    private final Semaphore freeSlots;
    private final int queueSize;
    private final List<Thread> workers = new ArrayList<>();
    private final AtomicInteger busy = new AtomicInteger();
    private volatile boolean stopping;

    WorkerPool(int threads, int queueSize, boolean virtualThreads, String nodeName,
               JobRunner runner, Consumer<Outcome> completions) {
        this.queueSize = queueSize;
        this.queue = new ArrayBlockingQueue<>(queueSize);
        this.freeSlots = new Semaphore(queueSize);
        Thread.Builder builder = virtualThreads
                ? Thread.ofVirtual().name("drover-worker-" + nodeName + "-", 0)
                : Thread.ofPlatform().daemon(false).name("drover-worker-" + nodeName + "-", 0);
        for (int i = 0; i < threads; i++) {
            workers.add(builder.unstarted(() -> work(runner, completions)));
        }
    }

    void start() {
        workers.forEach(Thread::start);
    }

    private void work(JobRunner runner, Consumer<Outcome> completions) {
        while (true) {
            AcquiredJob job;
            try {
                job = queue.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                if (stopping) {
                    return;
                }
                continue;
            }
            if (job == null) {
                if (stopping) {
                    return;
                }
                continue;
            }
            freeSlots.release();
            busy.incrementAndGet();
            try {
                completions.accept(runner.run(job));
            } finally {
                busy.decrementAndGet();
                Thread.interrupted(); // an interrupted handler must not poison the next job
            }
        }
    }

    /**
     * Waits until at least {@code atLeast} slots are free, then takes up to {@code atMost}.
     *
     * @return the slots reserved, 0 if the wait timed out
     */
    int reserve(int atLeast, int atMost, long timeoutMillis) throws InterruptedException {
        if (!freeSlots.tryAcquire(atLeast, timeoutMillis, TimeUnit.MILLISECONDS)) {
            return 0;
        }
        int extra = 0;
        while (atLeast + extra < atMost && freeSlots.tryAcquire()) {
            extra++;
        }
        return atLeast + extra;
    }

    void unreserve(int slots) {
        if (slots > 0) {
            freeSlots.release(slots);
        }
    }

    /** Enqueues jobs into slots reserved with {@link #reserve}; never blocks, never rejects. */
    void enqueue(List<AcquiredJob> jobs) {
        for (AcquiredJob job : jobs) {
            if (!queue.offer(job)) {
                throw new IllegalStateException("queue full despite reservation: a bug in slot accounting");
            }
        }
    }

    /** Stops the workers taking new jobs and returns the jobs that were queued but not started. */
    List<AcquiredJob> stopAndDrainQueued() {
        stopping = true;
        List<AcquiredJob> unstarted = new ArrayList<>();
        queue.drainTo(unstarted);
        return unstarted;
    }

    /** Waits for running jobs to finish; interrupts the ones still running at the deadline. */
    boolean awaitRunningJobs(long deadlineNanos) throws InterruptedException {
        for (Thread worker : workers) {
            long left = deadlineNanos - System.nanoTime();
            if (left > 0) {
                worker.join(java.time.Duration.ofNanos(left));
            }
        }
        boolean allDone = workers.stream().noneMatch(Thread::isAlive);
        if (!allDone) {
            workers.forEach(Thread::interrupt);
            for (Thread worker : workers) {
                worker.join(java.time.Duration.ofSeconds(1));
            }
        }
        return allDone;
    }

    int queued() {
        return queue.size();
    }

    int busy() {
        return busy.get();
    }

    int capacity() {
        return queueSize;
    }
}
