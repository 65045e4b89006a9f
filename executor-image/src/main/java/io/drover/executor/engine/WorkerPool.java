package io.drover.executor.engine;

import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.JobStarts;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A bounded queue of {@code queueSize} in front of {@code threads} workers.
 *
 * <p>The acquirer reserves queue slots before it acquires, so a page it locked always fits:
 * nothing is ever rejected, dropped or run on the acquiring thread (a caller-runs dispatcher
 * stops acquiring while it executes and starves every idle worker). A worker frees a slot as
 * soon as it takes a job, which is what wakes a waiting acquirer.
 *
 * <p>Every job a worker takes ends in exactly one way: an outcome for the completion loop, or
 * dropped from the held jobs because its lock is gone. Nothing escapes a worker: a Throwable
 * outside the handler (a bug of ours) becomes a retry, and a worker thread that dies anyway is
 * replaced. A run that outlives its {@code jobTimeout} is interrupted; one that ignores the
 * interrupt is given up after a grace period, its outcome written for it and its worker
 * replaced, so a hung handler costs a thread, never the node's queue.
 *
 * <p>A worker the JVM cannot start (no native thread: a container's pids limit, memory) is
 * counted missing and started again at every turn of the timeout watch; {@link #problem} tells
 * liveness when the pool has no worker left, or has been short of workers for long, so the
 * node is restarted rather than working on at a fraction of its threads with nothing saying so.
 */
final class WorkerPool {
    private static final Logger LOG = Logger.getLogger(WorkerPool.class);
    /** How long an interrupted run that timed out has to stop before its worker is given up. */
    static final Duration TIMEOUT_GRACE = Duration.ofSeconds(5);
    private static final long RECORDABLE_POLL_MILLIS = 50;
    private static final long WATCH_MILLIS = 200;

    private static final int RUNNING = 0;
    private static final int DONE = 1;
    private static final int TIMED_OUT = 2;
    private static final int ABANDONED = 3;
    private static final int SHUT_DOWN = 4;

    private final BlockingQueue<HeldJobs.Lease> queue;
    private final Semaphore freeSlots;
    private final int queueSize;
    private final int threads;
    private final ThreadFactory workerThreads;
    private final JobRunner runner;
    private final JobStarter starter;
    private final HeldJobs held;
    private final ExecutionGate gate = new ExecutionGate();
    private final Function<String, Duration> timeoutOf;
    private final int maxCrashes;
    private final Consumer<Outcome> completions;
    private final BooleanSupplier recordable;
    private final ExecutorMetrics metrics;
    private final Set<Worker> workers = ConcurrentHashMap.newKeySet();
    private final AtomicInteger busy = new AtomicInteger();
    private final AtomicInteger stuck = new AtomicInteger();
    /** Workers that could not be started, and since when the pool has been short of any (nanoTime). */
    private final AtomicInteger missing = new AtomicInteger();
    private volatile long missingSince;
    private volatile String missingCause;
    private final Heartbeats.Beat watchBeat;
    private final Thread watch;
    private volatile boolean stopping;

    /** One run of one job, watched for its timeout. */
    private static final class Execution {
        final Worker worker;
        final HeldJobs.Lease lease;
        final AcquiredJob job;
        final int attempt;
        final Duration timeout;
        final long deadline;
        final ExecutionGate.Pass pass;
        final boolean watched;
        final AtomicInteger state = new AtomicInteger(RUNNING);
        volatile long graceDeadline;

        Execution(Worker worker, HeldJobs.Lease lease, int attempt, Duration timeout, ExecutionGate.Pass pass,
                  boolean watched) {
            this.worker = worker;
            this.lease = lease;
            this.job = lease.job;
            this.attempt = attempt;
            this.timeout = timeout;
            this.deadline = System.nanoTime() + timeout.toNanos();
            this.pass = pass;
            this.watched = watched;
        }
    }

    private final class Worker implements Runnable {
        Thread thread;
        volatile Execution current;
        volatile boolean abandoned;
        /** Its thread was seen inside System.exit (logged then; it never leaves it). */
        volatile boolean exitSeen;

        @Override
        public void run() {
            try {
                while (!abandoned) {
                    HeldJobs.Lease job;
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
                    process(this, job);
                    Thread.interrupted(); // an interrupted handler must not poison the next job
                }
            } finally {
                workers.remove(this);
                if (!abandoned && !stopping) {
                    // Only a bug can get here (process() catches everything): keep the pool full.
                    LOG.errorf("Worker %s ended unexpectedly; starting a replacement", thread.getName());
                    replace();
                }
            }
        }
    }

    WorkerPool(int threads, int queueSize, ThreadFactory workerThreads, String nodeName, JobRunner runner,
               JobStarter starter, HeldJobs held, Function<String, Duration> timeoutOf, int maxCrashes,
               Consumer<Outcome> completions, BooleanSupplier recordable, Heartbeats heartbeats,
               ExecutorMetrics metrics) {
        this.threads = threads;
        this.queueSize = queueSize;
        this.queue = new ArrayBlockingQueue<>(queueSize);
        this.freeSlots = new Semaphore(queueSize);
        this.runner = runner;
        this.starter = starter;
        this.held = held;
        this.timeoutOf = timeoutOf;
        this.maxCrashes = maxCrashes;
        this.completions = completions;
        this.recordable = recordable;
        this.metrics = metrics;
        this.workerThreads = workerThreads;
        this.watchBeat = heartbeats.register("timeout watch");
        this.watch = Thread.ofPlatform().daemon().name("drover-timeouts-" + nodeName)
                .unstarted(watchBeat.guarded(this::watchTimeouts, LOG));
    }

    /** The workers' threads as the threads and virtualThreads settings say. */
    static ThreadFactory workerThreads(boolean virtualThreads, String nodeName) {
        return (virtualThreads ? Thread.ofVirtual().name("drover-worker-" + nodeName + "-", 0)
                : Thread.ofPlatform().daemon(false).name("drover-worker-" + nodeName + "-", 0)).factory();
    }

    void start() {
        for (int i = 0; i < threads; i++) {
            replace();
        }
        watch.start();
    }

    /**
     * Starts a worker in place of one gone; if the JVM cannot start it, it is counted missing.
     * The count, its start and its cause change together, under this pool's monitor, which
     * {@link #problem} reads them under too.
     */
    private void replace() {
        Throwable failed = startWorker();
        if (failed != null) {
            synchronized (this) {
                if (missing.get() == 0) {
                    missingSince = System.nanoTime();
                    LOG.errorf(failed, "A worker thread could not be started; it is tried again every %d ms", WATCH_MILLIS);
                }
                String cause = String.valueOf(failed);
                missingCause = cause.length() > 300 ? cause.substring(0, 300) + "..." : cause;
                missing.incrementAndGet();
            }
        }
    }

    /** Starts the workers counted missing, as many as the JVM lets (the timeout watch, every turn). */
    private void startMissing() {
        while (missing.get() > 0 && !stopping && startWorker() == null) {
            synchronized (this) {
                if (missing.decrementAndGet() == 0) {
                    LOG.infof("The worker threads that could not be started are running now (%d)", threads);
                    missingCause = null;
                }
            }
        }
    }

    /** @return null, or why the JVM could not start the thread */
    private Throwable startWorker() {
        Worker w = new Worker();
        try {
            w.thread = workerThreads.newThread(w);
            workers.add(w);
            w.thread.start();
            return null;
        } catch (Throwable t) { // OutOfMemoryError "unable to create native thread" (pids limit, memory)
            workers.remove(w);
            return t;
        }
    }

    private void process(Worker w, HeldJobs.Lease lease) {
        AcquiredJob job = lease.job;
        boolean marked = false;
        boolean settled = false;
        try {
            if (!held.valid(lease)) {
                // Its lock lapsed while it waited (renewals failed, or this node was frozen) or was
                // found lost (then the renewer dropped and counted it): another node may have it.
                if (held.drop(lease)) {
                    metrics.notStarted(1);
                }
                settled = true;
                return;
            }
            Outcome early = runner.precheck(job);
            if (early != null) {
                settle(lease, early);
                settled = true;
                return;
            }
            if (!awaitRecordable(lease)) {
                settled = true;
                return;
            }
            // A suspect (a node died holding it) runs watched: its start mark is committed first.
            // Its decisive run, when one more crash makes it poison, runs alone on this node.
            boolean watched = job.suspect();
            boolean solo = watched && maxCrashes > 1 && job.crashes() >= maxCrashes - 1;
            ExecutionGate.Pass pass = gate.enter(solo);
            if (pass == null) {
                settle(lease, runner.notAloneHere(job));
                settled = true;
                return;
            }
            try {
                JobStarts.Started s = watched || job.payloadDeferred() ? starter.start(lease, watched)
                        : new JobStarts.Started(job.attempts() + 1, job.payload());
                if (s == JobStarter.FATE_UNKNOWN) {
                    // Its start mark was sent, and no answer came before its lease ran out or the
                    // node stopped: not run, and handed back in its tenure, the mark's charge given
                    // back if the mark went in. Dropped instead, a mark that went in would be
                    // counted as a crash (and at maxCrashes as poison) when its lock expired.
                    LOG.infof("Job %d is handed back, not run: the answer to its start mark was lost (the database"
                            + " stopped answering) and its lease ran out, or the node is stopping", job.id());
                    settle(lease, new Outcome.Retry(job, 0, "its start could not be confirmed (the database"
                            + " stopped answering): handed back, not run", -1));
                    settled = true;
                    return;
                }
                if (s == null) {
                    if (held.drop(lease)) { // its lock is gone: whoever holds it now runs it
                        metrics.notStarted(1);
                    }
                    settled = true;
                    return;
                }
                marked = watched;
                if (stopping || Thread.currentThread().isInterrupted()) {
                    // The node began to stop while this job came through the gate or its start was
                    // being written (JobStarter.start): not run, for a job started after the stop
                    // began may be cut by it; the handler below gives back what the mark charged.
                    throw new InterruptedException("shut down as it started");
                }
                if (!held.start(lease)) {
                    // The lease lapsed meanwhile (renewals failing): not run here. Dropped by the
                    // renewer and never marked, there is nothing to write: the renewer counted it,
                    // and its row is released as a stray lock. Otherwise it is handed back, its
                    // start mark's charge given back.
                    if (marked || !held.dropped(lease)) {
                        settle(lease, new Outcome.Retry(job, 0, "its lease lapsed as it started", marked ? -1 : 0));
                    }
                    settled = true;
                    return;
                }
                Execution ex = new Execution(w, lease, s.attempt(), timeoutOf.apply(job.type()), pass, watched);
                synchronized (w) {
                    w.current = ex;
                }
                if (Thread.currentThread().isInterrupted()) {
                    // A shutdown's interrupt came before this run was current, so nothing marked
                    // it (awaitRunningJobs marks only the run in progress): not run.
                    synchronized (w) {
                        w.current = null;
                    }
                    throw new InterruptedException("shut down as it started");
                }
                busy.incrementAndGet();
                Outcome outcome;
                int ended;
                try {
                    outcome = runner.run(job, s, watched);
                } finally {
                    busy.decrementAndGet();
                    // Under the monitor the watch and the shutdown mark a run by: from here on
                    // neither marks this one, and the next run is not yet current.
                    synchronized (w) {
                        w.current = null;
                        ended = ex.state.compareAndExchange(RUNNING, DONE);
                    }
                }
                if (ended == RUNNING) {
                    settle(lease, runner.counted(job, outcome));
                } else if (ex.state.compareAndSet(TIMED_OUT, DONE)) {
                    // Interrupted at its timeout: a run that still succeeded counts (running it
                    // again would run it twice); any other ending is the timeout's failure.
                    settle(lease, runner.counted(job, outcome instanceof Outcome.Succeeded ? outcome
                            : runner.timedOut(job, ex.attempt, ex.timeout, true, watched)));
                } else if (ex.state.compareAndSet(SHUT_DOWN, DONE)) {
                    // Interrupted by a shutdown past its grace period: a run that still succeeded
                    // counts; any other ending is the interrupt's, however the handler reported
                    // it (wrapped in its own exception, an InterruptedIOException, a closed
                    // channel): handed back at no cost, never a failed attempt or a dead letter.
                    settle(lease, runner.counted(job, outcome instanceof Outcome.Succeeded ? outcome
                            : runner.interruptedByShutdown(job, watched)));
                } else {
                    // Given up by the timeout watch, which wrote the outcome and left the gate.
                    stuck.decrementAndGet();
                    LOG.infof("Job %d finally returned %s after its worker was given up", job.id(),
                            outcome.name());
                }
                settled = true;
            } finally {
                pass.leave(); // no effect if the timeout watch left it for a worker it gave up
            }
        } catch (JobStarter.StartRefused e) {
            // The database refused its start mark or payload read: it never ran. A row to blame
            // never will (dead-lettered with the reason); otherwise it is handed back for later.
            // No attempt either way: a suspect's mark is given back, for an earlier try of its
            // batch may have committed it before the refusal (a give-back changes only a row
            // that carries a mark).
            if (!settled) {
                int giveBack = job.suspect() ? -1 : 0;
                settle(lease, runner.counted(job, e.rowsFault ? new Outcome.DeadLetter(job, e.getMessage(), giveBack)
                        : new Outcome.Retry(job, RetryPolicy.DEFER_DELAY.toMillis(), e.getMessage() + "; handed back", giveBack)));
            }
        } catch (InterruptedException e) {
            // Shutdown interrupted a wait before the job ran: it is given back, at no cost.
            Thread.currentThread().interrupt();
            if (!settled) {
                settle(lease, new Outcome.Retry(job, 0, "executor shut down before it started", marked ? -1 : 0));
                settled = true;
            }
        } catch (Throwable t) {
            try {
                LOG.errorf(t, "Executor error on job %d; it is given back to run again", job.id());
                if (!settled) {
                    // A suspect's mark may have gone in unconfirmed (an Error in the starter): given
                    // back all the same, which changes only a row that carries one.
                    settle(lease, runner.internalError(job, t, marked || job.suspect()));
                }
            } catch (Throwable again) {
                // Not even that (the throwable cannot be described, the heap is exhausted): the
                // job's lock is let go, so it lapses and the job is recovered like a dead
                // node's (a crash, then poison), rather than renewed here for ever, never run.
                held.drop(lease);
                throw again;
            }
        }
    }

    /**
     * Waits while outcomes cannot be recorded (the database is unreachable, or writes hang):
     * a job run now could not be recorded, and if this node then died, or its locks lapsed, it
     * would run again elsewhere. Gives up the job if its lease runs out meanwhile.
     *
     * @return false if the job was dropped
     */
    private boolean awaitRecordable(HeldJobs.Lease lease) throws InterruptedException {
        while (!recordable.getAsBoolean()) {
            if (stopping) {
                throw new InterruptedException("stopping");
            }
            if (!held.valid(lease)) {
                if (held.drop(lease)) {
                    metrics.notStarted(1);
                }
                return false;
            }
            Thread.sleep(RECORDABLE_POLL_MILLIS);
        }
        return true;
    }

    private void settle(HeldJobs.Lease lease, Outcome outcome) {
        if (held.completing(lease)) {
            completions.accept(outcome);
        } else {
            LOG.debugf("Job %d finished after its lock was found lost (counted then): its outcome is not written", lease.id());
        }
    }

    /** The timeout watch: interrupts runs past their jobTimeout, gives up workers that ignore it. */
    private void watchTimeouts() {
        while (!Thread.currentThread().isInterrupted()) {
            watchBeat.beat();
            try {
                Thread.sleep(WATCH_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            startMissing();
            long now = System.nanoTime();
            for (Worker w : workers) {
                Execution ex = w.current;
                if (ex == null || stopping && inJvmExit(w)) {
                    // A run that is the JVM's exit is not timed out while the node stops: its job
                    // stays locked, as a killed node's (inJvmExit), not charged a timeout and released.
                    continue;
                }
                try {
                    if (now - ex.deadline > 0 && ex.state.compareAndSet(RUNNING, TIMED_OUT)) {
                        ex.graceDeadline = now + TIMEOUT_GRACE.toNanos();
                        metrics.timedOut(ex.job.type());
                        LOG.warnf("Job %d (%s) ran past its jobTimeout %s: interrupting it", ex.job.id(),
                                ex.job.type(), ex.timeout);
                        synchronized (w) {
                            if (w.current == ex) {
                                w.thread.interrupt();
                            }
                        }
                    } else if (ex.state.get() == TIMED_OUT && now - ex.graceDeadline > 0
                            && ex.state.compareAndSet(TIMED_OUT, ABANDONED)) {
                        giveUp(w, ex);
                    }
                } catch (Throwable t) { // the watch must outlive any one job's trouble, or no run times out again
                    LOG.errorf(t, "Timeout watch failed on job %d", ex.job.id());
                }
            }
        }
    }

    private void giveUp(Worker w, Execution ex) {
        stuck.incrementAndGet();
        w.abandoned = true;
        workers.remove(w);
        settle(ex.lease, runner.counted(ex.job, runner.timedOut(ex.job, ex.attempt, ex.timeout, false, ex.watched)));
        ex.pass.leave();
        LOG.errorf("Job %d (%s) ignored the interrupt after its jobTimeout %s: its worker %s is given up"
                + " (%d stuck) and replaced", ex.job.id(), ex.job.type(), ex.timeout, w.thread.getName(), stuck.get());
        if (!stopping) {
            replace();
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
    void enqueue(List<HeldJobs.Lease> jobs) {
        for (HeldJobs.Lease job : jobs) {
            if (!queue.offer(job)) {
                throw new IllegalStateException("queue full despite reservation: a bug in slot accounting");
            }
        }
    }

    /**
     * From now on no job starts: one a worker has taken is handed back at no cost. Called as the
     * node begins to stop, before the acquirer's stop (which may wait for its statement).
     */
    void beginStopping() {
        stopping = true;
        gate.close();
    }

    /** Stops the workers taking new jobs and returns the jobs that were queued but not started. */
    List<HeldJobs.Lease> stopAndDrainQueued() {
        stopping = true;
        gate.close();
        List<HeldJobs.Lease> unstarted = new ArrayList<>();
        queue.drainTo(unstarted);
        return unstarted;
    }

    /**
     * Waits for running jobs to finish; interrupts the ones still running at the deadline.
     *
     * @return what the workers still busy at the deadline were doing, for the log: empty if none was
     */
    List<String> awaitRunningJobs(long deadlineNanos) throws InterruptedException {
        joinWorkers(deadlineNanos);
        List<Worker> alive = workers.stream().filter(w -> w.thread.isAlive() && !inJvmExit(w)).toList();
        List<String> busyAtDeadline = alive.stream().map(WorkerPool::describe).toList();
        if (!alive.isEmpty()) {
            for (Worker w : alive) {
                synchronized (w) { // as the timeout watch: only the run in progress now
                    Execution ex = w.current;
                    if (ex != null) {
                        ex.state.compareAndSet(RUNNING, SHUT_DOWN);
                    }
                    w.thread.interrupt();
                }
            }
            // A second for all of them, not each: with many handlers ignoring the interrupt, a
            // second apiece ran past the pod's termination grace period.
            joinWorkers(System.nanoTime() + Duration.ofSeconds(1).toNanos());
        }
        watch.interrupt();
        return busyAtDeadline;
    }

    /**
     * What a worker that holds up the stop is doing: its job, or, between jobs, where it waits
     * (its start mark's answer, the gate), so a stop that runs out its grace says what it waited for.
     */
    private static String describe(Worker w) {
        Execution ex = w.current;
        if (ex != null) {
            return "job " + ex.job.id() + " (" + ex.job.type() + ") on " + w.thread.getName();
        }
        String at = Arrays.stream(w.thread.getStackTrace())
                .filter(f -> f.getClassName().startsWith("io.drover."))
                .findFirst().map(f -> f.getClassName().substring(f.getClassName().lastIndexOf('.') + 1) + "." + f.getMethodName())
                .orElse("outside the engine");
        return w.thread.getName() + " between jobs, at " + at;
    }

    /**
     * Waits up to {@code max} for the workers still alive (not those given up in a handler): one
     * that waited for its start mark's answer past the interrupt (JobStarter.start) settles its
     * job when the starter stops, and that outcome must reach the completion loop before it ends.
     */
    void awaitWorkers(Duration max) throws InterruptedException {
        joinWorkers(System.nanoTime() + max.toNanos());
    }

    /**
     * Joins the workers still in the pool, each for what is left until the deadline, except one
     * whose run is the JVM's exit ({@link #inJvmExit}): that one never ends, and waiting for it
     * kept a node whose handler called System.exit alive for all of shutdownGracePeriod, until
     * liveness killed it. The others' runs still get their grace.
     */
    private void joinWorkers(long deadlineNanos) throws InterruptedException {
        for (Worker w : List.copyOf(workers)) {
            while (w.thread.isAlive() && !inJvmExit(w)) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                w.thread.join(Duration.ofNanos(Math.min(left, EXIT_CHECK.toNanos())));
            }
        }
    }

    /** How often a join looks again whether the worker it waits for has gone into the JVM's exit. */
    private static final Duration EXIT_CHECK = Duration.ofMillis(200);

    /**
     * True if the worker's thread is inside {@code System.exit} (its handler, or code it called,
     * ended the JVM). Such a thread waits in the exit for the JVM's shutdown hooks, this stop
     * among them, so its run can never return. Its job is left as a killed node's is, locked by
     * this node: the node that recovers it (this one restarted, or any once the lock expires)
     * makes it a suspect, whose next runs are watched, and the poison rule ends it if it keeps
     * ending nodes. A stack walk, but only of a worker still alive while the node stops.
     */
    private boolean inJvmExit(Worker w) {
        if (w.exitSeen) {
            return true; // a thread inside the exit never leaves it: no need to walk its stack again
        }
        for (StackTraceElement frame : w.thread.getStackTrace()) {
            if (frame.getClassName().equals("java.lang.Shutdown") && frame.getMethodName().equals("exit")) {
                w.exitSeen = true;
                Execution ex = w.current;
                LOG.warnf("The run of job %s called System.exit: the stop does not wait for it; the job stays"
                        + " locked by this node, as a killed node's would", ex == null ? "(none)" : String.valueOf(ex.lease.id()));
                return true;
            }
        }
        return false;
    }

    int queued() {
        return queue.size();
    }

    int busy() {
        return busy.get();
    }

    /** Workers given up in handlers that ignored their timeout's interrupt, and still inside them. */
    int stuck() {
        return stuck.get();
    }

    int capacity() {
        return queueSize;
    }

    /**
     * Why this pool cannot work any more, or null: every worker is stuck in a handler, or no
     * worker could be started, or some could not for longer than {@code shortFor} (a node at a
     * fraction of its threads, whose restart frees what the JVM ran out of).
     */
    synchronized String problem(Duration shortFor) {
        int s = stuck.get();
        if (s >= threads) {
            return s + " worker threads are stuck in handlers that ignore interrupts";
        }
        int m = missing.get();
        if (m == 0) {
            return null;
        }
        long quiet = System.nanoTime() - missingSince;
        if (m >= threads) {
            return "no worker thread could be started: " + missingCause;
        }
        return quiet > shortFor.toNanos() ? m + " of " + threads + " worker threads could not be started for "
                + quiet / 1_000_000_000L + " s: " + missingCause : null;
    }
}
