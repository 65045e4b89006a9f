package io.drover.flowable.engine;

import org.flowable.common.engine.impl.async.AsyncTaskExecutorConfiguration;
import org.flowable.common.engine.impl.async.DefaultAsyncTaskExecutor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Flowable's job thread pool, kept in hand: its busy threads and queue for the metrics, and its
 * shutdown in this node's order. Flowable's own engine close unlocks the node's jobs while the
 * pool still runs them (a job finishing after that fails its commit and runs again); the node
 * stops this pool first, handing back what is queued and letting what runs end ({@link FlowableNode#stop}).
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
     * is full) and takes out what is queued and not started, for the node to hand back: a stopping
     * node starts no job after it began to stop. ThreadPoolExecutor's own shutdown runs its whole
     * queue, up to queueSize jobs, within the grace period, and jobs started late were killed with
     * the pod and ran again elsewhere.
     *
     * @return the runs taken out of the queue
     */
    List<Runnable> stopTaking() {
        ThreadPoolExecutor p = pool;
        if (p == null) {
            return List.of();
        }
        // Drained before the shutdown too: a worker that ends its job between the two takes the
        // next queued one, which a drain after the shutdown alone left it.
        List<Runnable> queued = new ArrayList<>();
        p.getQueue().drainTo(queued);
        p.shutdown();
        p.getQueue().drainTo(queued); // submitted meanwhile
        return queued;
    }

    /**
     * Waits, at most {@code grace}, for the running jobs to end (after {@link #stopTaking}).
     *
     * @return whether they all ended in time
     */
    boolean awaitRunning(Duration grace) throws InterruptedException {
        ThreadPoolExecutor p = pool;
        return p == null || p.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
    }
}
