package io.drover.executor.engine;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Lets jobs run side by side, except a suspect that runs alone. A job that was running on
 * nodes that died {@code maxCrashes - 1} times gets its decisive run with no other job running
 * on its node: if the node dies again, the crash is that job's alone and it is dead-lettered as
 * poison, while innocent jobs that happened to run beside a node-killer are never blamed for it.
 *
 * <p>A fair semaphore of as many permits as an int holds: a job takes one, a solo run takes them
 * all, so it waits for the running jobs to end and keeps every job out while it runs; being fair
 * (first come, first served), it also keeps out the jobs that arrive while it waits, so a solo run
 * is never starved. A job's pass through it is a compare-and-set while no solo run waits (it was
 * a monitor with a notifyAll on every exit; no CPU difference was measurable in a no-op drain).
 * Not tied to threads (unlike a ReadWriteLock): a worker stuck in a handler that ignores
 * interrupts is given up by the timeout watch, which leaves the gate on its behalf; the worker,
 * should its handler ever return, leaves it again to no effect ({@link Pass}).
 */
final class ExecutionGate {
    private static final int ALL = Integer.MAX_VALUE;
    private final Semaphore permits = new Semaphore(ALL, true);

    /** One run's way through the gate; leaving it twice (the worker and the watch) leaves it once. */
    final class Pass {
        private final int taken;
        private final AtomicBoolean left = new AtomicBoolean();

        private Pass(int taken) {
            this.taken = taken;
        }

        void leave() {
            if (left.compareAndSet(false, true)) {
                permits.release(taken);
            }
        }
    }

    Pass enter(boolean solo) throws InterruptedException {
        int taken = solo ? ALL : 1;
        permits.acquire(taken);
        return new Pass(taken);
    }

    /** Runs waiting to enter (for tests). */
    int waiting() {
        return permits.getQueueLength();
    }
}
