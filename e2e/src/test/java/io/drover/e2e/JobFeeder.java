package io.drover.e2e;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps enqueueing batches of http jobs while something happens to the cluster (a roll, a
 * scale-down), adding their ids to a shared list for the execution count.
 */
final class JobFeeder implements AutoCloseable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    JobFeeder(JobTable table, List<Long> ids, int batch, long pauseMillis) {
        this(() -> table.enqueueHttp(batch, 0), ids, pauseMillis);
    }

    /** Keeps calling {@code enqueue} (which returns the new ids) every {@code pauseMillis}. */
    JobFeeder(java.util.concurrent.Callable<List<Long>> enqueue, List<Long> ids, long pauseMillis) {
        thread = Thread.ofPlatform().start(() -> {
            while (running.get()) {
                try {
                    List<Long> more = enqueue.call();
                    synchronized (ids) {
                        ids.addAll(more);
                    }
                    Thread.sleep(pauseMillis);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        });
    }

    /** Stops feeding and waits for the batch in flight. */
    @Override
    public void close() throws InterruptedException {
        running.set(false);
        thread.join();
    }
}
