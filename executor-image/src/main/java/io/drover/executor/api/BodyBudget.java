package io.drover.executor.api;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of request bodies the node reads at once. Each body is bounded
 * ({@code quarkus.http.limits.max-body-size}), but not how many arrive together, and a body
 * takes several times its size in heap while it is parsed and written: two dozen callers each
 * sending a 9 MB batch at the same time ended a node of 256 MiB with an OutOfMemoryError, and
 * every job it was running with it. A body is admitted only while the bytes already admitted
 * leave room for it; past that the call is answered 503, to be retried (BodyLimit).
 */
final class BodyBudget {
    private final long capacity;
    private final AtomicLong inUse = new AtomicLong();

    /**
     * @param capacity    the setting {@code api.maxBodyBytesInFlight}, or, when it is not set, an eighth of the
     *                    heap
     * @param largestBody the body limit: a body the node takes must be admissible when nothing else is in flight
     */
    BodyBudget(long capacity, long largestBody) {
        this.capacity = Math.max(capacity, largestBody);
    }

    static long defaultCapacity() {
        return Runtime.getRuntime().maxMemory() / 8;
    }

    long capacity() {
        return capacity;
    }

    /** Takes {@code bytes} if they fit beside what is in flight; false, taking nothing, if not. */
    boolean tryTake(long bytes) {
        while (true) {
            long now = inUse.get();
            if (now + bytes > capacity) {
                return false;
            }
            if (inUse.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    void give(long bytes) {
        inUse.addAndGet(-bytes);
    }
}
