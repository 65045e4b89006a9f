package io.drover.flowable.engine;

import org.flowable.common.engine.impl.async.AsyncTaskExecutorConfiguration;
import org.flowable.common.engine.impl.async.DefaultAsyncTaskExecutor;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Flowable's job thread pool, kept in hand: its busy threads and queue for the metrics, and its
 * shutdown in this node's order. Flowable's own engine close unlocks the node's jobs while the
 * pool still runs them (a job finishing after that fails its commit and runs again); the node
 * drains this pool first ({@link FlowableNode#stop}).
 */
final class MeteredTaskExecutor extends DefaultAsyncTaskExecutor {
    private volatile ThreadPoolExecutor pool;

    MeteredTaskExecutor(AsyncTaskExecutorConfiguration configuration) {
        super(configuration);
    }

    @Override
    protected ExecutorService initializeExecutor() {
        ExecutorService executor = super.initializeExecutor();
        pool = (ThreadPoolExecutor) executor;
        return executor;
    }

    int busyThreads() {
        ThreadPoolExecutor p = pool;
        return p == null ? 0 : p.getActiveCount();
    }

    int queued() {
        ThreadPoolExecutor p = pool;
        return p == null ? 0 : p.getQueue().size();
    }

    /**
     * Stops taking work (Flowable then hands back each job it acquires, as it does when the queue
     * is full) and lets what is queued and running finish, for at most {@code grace}.
     *
     * @return whether everything finished in time
     */
    boolean drain(Duration grace) throws InterruptedException {
        ThreadPoolExecutor p = pool;
        if (p == null) {
            return true;
        }
        p.shutdown();
        return p.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
    }
}
