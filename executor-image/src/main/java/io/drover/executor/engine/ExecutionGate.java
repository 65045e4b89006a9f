package io.drover.executor.engine;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
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
 * is never starved; it waits at most {@link #SOLO_WAIT}, so neither is the node. A job's pass through it is a compare-and-set while no solo run waits (it was
 * a monitor with a notifyAll on every exit; no CPU difference was measurable in a no-op drain).
 * Not tied to threads (unlike a ReadWriteLock): a worker stuck in a handler that ignores
 * interrupts is given up by the timeout watch, which leaves the gate on its behalf; the worker,
 * should its handler ever return, leaves it again to no effect ({@link Pass}).
 */
final class ExecutionGate {
    /**
     * How long a solo run waits for the node's running jobs to end. Every job that arrives
     * meanwhile waits behind it (fairness): without a bound, a suspect's decisive run taken beside
     * a job of an hour's timeout held up every other job of its node for that hour, while the node
     * looked healthy and its locks were renewed. Past it the suspect is handed back for a node
     * that can run it alone now (JobRunner.notAloneHere). Long enough for a job that ignores its
     * timeout's interrupt to be given up (jobTimeout, then the watch's grace): at 10 s, the chaos
     * campaign's decisive run (beside such a job of a 5 s timeout) missed it by a moment and waited
     * out the minute of a hand-back.
     */
    static final Duration SOLO_WAIT = Duration.ofSeconds(30);
    private static final int ALL = Integer.MAX_VALUE;
    private final Semaphore permits = new Semaphore(ALL, true);
    /** The threads waiting to enter, for {@link #close} to interrupt; only runs that must wait come here. */
    private final Set<Thread> waiters = new HashSet<>();
    /** Guarded by {@link #waiters}. */
    private boolean closed;
    private final Duration soloWait;

    ExecutionGate() {
        this(SOLO_WAIT);
    }

    ExecutionGate(Duration soloWait) {
        this.soloWait = soloWait;
    }

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

    /**
     * @return the pass; null for a solo run the running jobs did not make room for within {@link #SOLO_WAIT}
     * @throws InterruptedException if interrupted, or the node began to stop ({@link #close}) while this run waited
     */
    Pass enter(boolean solo) throws InterruptedException {
        int wanted = solo ? ALL : 1;
        if (!solo && permits.tryAcquire(1, 0, TimeUnit.NANOSECONDS)) {
            return new Pass(1); // the usual way, no wait: nothing to register (honours fairness, unlike tryAcquire())
        }
        Thread me = Thread.currentThread();
        synchronized (waiters) {
            if (closed) {
                throw new InterruptedException("the node is stopping: no run enters the gate");
            }
            waiters.add(me);
        }
        boolean in = false;
        boolean open;
        try {
            if (solo) {
                in = permits.tryAcquire(ALL, soloWait.toNanos(), TimeUnit.NANOSECONDS);
            } else {
                permits.acquire(1);
                in = true;
            }
        } finally {
            // Whatever ended the wait (an Error too): a thread left registered would be
            // interrupted by the next close() in the middle of a handler's run.
            open = stopWaiting(me);
            if (!open && in) {
                permits.release(wanted);
            }
        }
        if (!open) {
            throw new InterruptedException("the node began to stop while this run waited at the gate");
        }
        return in ? new Pass(wanted) : null;
    }

    /**
     * The node is stopping: the runs waiting at the gate give up at once (interrupted), and none
     * enters by waiting from now on. A stopping node starts no job, so a wait here could only hold
     * up its stop: behind a solo run that never ends (its handler called System.exit, which the
     * stop does not wait for) the workers waiting here were waited for all of shutdownGracePeriod,
     * and liveness killed the node first (the chaos campaign's poison jobs).
     */
    void close() {
        synchronized (waiters) {
            closed = true;
            waiters.forEach(Thread::interrupt);
        }
    }

    /** @return false if the gate was closed meanwhile (close's interrupt, if it came, is cleared: the caller throws) */
    private boolean stopWaiting(Thread me) {
        synchronized (waiters) {
            waiters.remove(me);
            if (closed) {
                Thread.interrupted();
                return false;
            }
            return true;
        }
    }

    /** Runs waiting to enter (for tests). */
    int waiting() {
        return permits.getQueueLength();
    }
}
