package io.drover.executor.engine;

import io.drover.contract.DatabaseDiagnosis;

import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.CompletionWriter;
import org.jboss.logging.Logger;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Writes outcomes in batches from one thread. Batching needs no timer: while one write is in
 * flight the next outcomes pile up and go together, so an idle node writes each completion at
 * once and a busy one writes hundreds per round trip. A failed write is retried, batch intact,
 * until it succeeds or the shutdown deadline passes; the jobs stay locked (and renewed) all
 * along, so an outcome is never lost silently: at worst the job runs again after lock expiry.
 *
 * <p>An outcome the database refuses to store even as a dead letter (a foreign key onto the job
 * table refuses its delete, and a dead letter's move is a delete too) is held, its job's lock
 * renewed, and written again every {@link #UNWRITABLE_RETRY} until the database takes it. Let go,
 * its lock lapsed and the job ran again on whichever node swept it, once per crash it was
 * charged, every run refused alike.
 */
final class CompletionLoop implements OutcomeBacklog {
    private static final Logger LOG = Logger.getLogger(CompletionLoop.class);

    /** How often outcomes the database refused to store at all are written again. */
    static final java.time.Duration UNWRITABLE_RETRY = java.time.Duration.ofSeconds(10);

    private final LinkedBlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();
    /** Outcomes the database refused to store at all, by job id (this loop's thread only), and when next to try them. */
    private final java.util.Map<Long, Outcome> unwritable = new java.util.LinkedHashMap<>();
    private volatile int unwritableCount;
    private long unwritableRetryAt;
    /** Notified each time a batch is taken from {@link #outcomes}: see {@link #awaitAtMost}. */
    private final Object batchTaken = new Object();
    private final DataSource dataSource;
    private final CompletionWriter writer;
    private final HeldJobs held;
    private final DatabaseHealth database;
    private final Heartbeats.Beat beat;
    private final ExecutorMetrics metrics;
    private final int maxBatch;
    private final ProblemLog problems = new ProblemLog(LOG, "Writing job outcomes");
    private volatile DatabaseDiagnosis lastDiagnosis;
    private final Thread thread;
    private volatile boolean stopping;
    /** Set by {@link #stop} before {@code stopping}: compared by difference, as nanoTime must be (a sum may wrap). */
    private volatile long hardDeadlineNanos;
    /** When the batch being written was first tried; 0 while none is. */
    private volatile long writingSinceNanos;

    CompletionLoop(DataSource dataSource, CompletionWriter writer, HeldJobs held, DatabaseHealth database,
                   Heartbeats heartbeats, ExecutorMetrics metrics, int maxBatch, String nodeName) {
        this.dataSource = dataSource;
        this.writer = writer;
        this.held = held;
        this.database = database;
        this.beat = heartbeats.register("completion");
        this.metrics = metrics;
        this.maxBatch = maxBatch;
        this.thread = Thread.ofPlatform().name("drover-completion-" + nodeName).unstarted(beat.guarded(this::run, LOG));
    }

    void start() {
        thread.start();
    }

    void submit(Outcome outcome) {
        outcomes.add(outcome);
    }

    int pending() {
        return outcomes.size();
    }

    /** Outcomes held because the database refuses to store them, not even as dead letters. */
    int unwritable() {
        return unwritableCount;
    }

    @Override
    public boolean awaitAtMost(int max, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        synchronized (batchTaken) {
            // Held outcomes count: if the database refuses every outcome (a storage fault on the
            // job table), the node stops taking jobs once that many are held, not the whole backlog.
            while (outcomes.size() + unwritableCount > max) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(batchTaken, left);
            }
        }
        return true;
    }

    /**
     * The latest write failure, for liveness to name: in a status's words with its SQLState,
     * never the driver's message (a trigger's RAISE text, a constraint's detail), which anyone who
     * reaches the pod could read; the log has that.
     */
    String lastProblem() {
        DatabaseDiagnosis d = lastDiagnosis;
        return d == null ? "the write has had no answer yet" : d.toString();
    }

    /** How long the batch being written has been trying (0 when none is): a stalled pipeline. */
    long stalledNanos() {
        long since = writingSinceNanos;
        return since == 0 ? 0 : System.nanoTime() - since;
    }

    private void run() {
        List<Outcome> batch = new ArrayList<>(maxBatch);
        while (!(stopping && outcomes.isEmpty()) && !pastDeadline()) {
            beat.beat();
            if (!unwritable.isEmpty() && System.nanoTime() - unwritableRetryAt >= 0) {
                retryUnwritable();
            }
            try {
                Outcome first = outcomes.poll(50, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                outcomes.drainTo(batch, maxBatch - 1);
                // Under the monitor a waiter holds from its check of the size to its wait: no
                // wake-up is lost between the two.
                synchronized (batchTaken) {
                    batchTaken.notifyAll();
                }
                writeUntilDone(batch);
                batch.clear();
            } catch (InterruptedException e) {
                // interrupts only come from stop(); the loop condition decides
            }
        }
        if (!batch.isEmpty() || !outcomes.isEmpty()) {
            LOG.warnf("Shutdown deadline passed with %d job outcomes unwritten; those jobs stay locked and"
                    + " run again after lock expiry", batch.size() + outcomes.size());
        }
        if (!unwritable.isEmpty()) {
            LOG.errorf("Stopping with the outcomes of jobs %s unwritten: the database refuses to store them (see"
                    + " above); those jobs stay locked and run again after lock expiry", unwritable.keySet());
        }
    }

    private static CompletionWriter.Batch batchOf(List<Outcome> outcomes) {
        CompletionWriter.Batch batch = new CompletionWriter.Batch();
        outcomes.forEach(o -> batch.add(o.entry()));
        return batch;
    }

    private void writeUntilDone(List<Outcome> outcomes) throws InterruptedException {
        CompletionWriter.Batch batch = batchOf(outcomes);
        writingSinceNanos = System.nanoTime();
        try {
            writeWithRetries(outcomes, batch);
        } finally {
            writingSinceNanos = 0;
        }
    }

    private void writeWithRetries(List<Outcome> outcomes, CompletionWriter.Batch batch) throws InterruptedException {
        long backoff = 100;
        boolean again = false; // a write failed: its commit may have happened, its answer lost
        while (true) {
            beat.beat();
            try (Connection c = dataSource.getConnection()) {
                CompletionWriter.Result result = writer.write(c, batch);
                problems.succeeded();
                lastDiagnosis = null; // a later write that hangs must not show this one's cause
                database.succeeded();
                metrics.completionBatch(outcomes.size());
                settle(outcomes, result, again);
                return;
            } catch (Exception e) {
                again = true;
                database.failed(e);
                problems.failed(e);
                lastDiagnosis = DatabaseDiagnosis.of(e);
                if (pastDeadline()) {
                    outcomes.clear(); // reported by run(); locks expire and the jobs run again
                    return;
                }
                Thread.sleep(backoff);
                backoff = Math.min(backoff * 2, 5000);
            }
        }
    }

    /**
     * Writes the held outcomes again, as a batch of their own, once: any failure keeps them held
     * for the next try. Mixed into another batch, their refusal had the writer take that batch
     * row by row; and alone, a refusal it cannot tell from the server's trouble (SQLState 42,
     * 58, XX) was retried for good, holding up every outcome behind it until liveness failed.
     * Written again while still held (renewed), one that changes nothing was written by an
     * earlier try whose answer was lost: settled with {@code again}, not counted a lost lock.
     */
    private void retryUnwritable() {
        unwritableRetryAt = System.nanoTime() + UNWRITABLE_RETRY.toNanos();
        List<Outcome> parked = List.copyOf(unwritable.values());
        try (Connection c = dataSource.getConnection()) {
            settle(parked, writer.write(c, batchOf(parked)), true);
        } catch (Exception e) {
            LOG.debugf("The held outcomes of jobs %s could not be written again: %s", unwritable.keySet(), e.getMessage());
        }
    }

    /** What a write did, for the held jobs, the metrics and the log. */
    private void settle(List<Outcome> outcomes, CompletionWriter.Result result, boolean again) {
        if (!result.refused().isEmpty()) {
            LOG.errorf("The database refused the outcome of jobs %s; they were moved to dead letters with"
                    + " its reason", result.refused());
        }
        List<Outcome> settled = hold(outcomes, result.unwritable());
        int lost = settled.size() - result.written();
        List<AcquiredJob> jobs = settled.stream().map(Outcome::job).toList();
        if (lost > 0 && again && held.stillHeld(jobs)) {
            // Every lease was still running when the rewrite ended: no other node can
            // have taken those rows by expiry, so the failed write committed them before
            // its answer was lost. Not a lost lock: a database blip must not fire the
            // "may have run twice" alert. Counted apart, since rows moved outside the
            // lease model (a hand-made unlock, a stepped database clock) look the same.
            metrics.rewritesUnchanged(lost);
            LOG.infof("%d of %d job outcomes changed nothing when written again after a failed write: it had"
                    + " committed them before its answer was lost (their locks were this node's throughout)",
                    lost, outcomes.size());
        } else if (lost > 0) {
            metrics.locksLost(lost);
            LOG.warnf(again ? "%d of %d job outcomes changed nothing when written again after a failed write:"
                    + " the failed write may have committed them before its answer was lost, or their locks"
                    + " expired meanwhile and went to another node (those jobs may have run twice)"
                    : "%d of %d job outcomes found their lock gone (expired and taken by another node): those"
                    + " jobs may have run twice", lost, outcomes.size());
        }
        held.completed(jobs);
    }

    /**
     * Holds the outcomes the database refused to store at all (their jobs stay locked and
     * renewed), lets go of those of them it took now, and returns the outcomes this write settled.
     */
    private List<Outcome> hold(List<Outcome> written, List<Long> refused) {
        boolean noneHeld = unwritable.isEmpty();
        java.util.Set<Long> ids = java.util.Set.copyOf(refused);
        List<Outcome> settled = new ArrayList<>(written.size());
        List<Long> held = new ArrayList<>();
        List<Long> takenAtLast = new ArrayList<>();
        for (Outcome o : written) {
            long id = o.job().id();
            if (ids.contains(id)) {
                if (unwritable.put(id, o) == null) {
                    held.add(id);
                }
            } else {
                settled.add(o);
                if (unwritable.remove(id) != null) {
                    takenAtLast.add(id);
                }
            }
        }
        if (!held.isEmpty()) {
            LOG.errorf("The outcome of jobs %s could not be written at all, not even as a dead letter (a foreign key"
                    + " onto the job table, a trigger or a permission refuses the change of their rows): they stay"
                    + " locked by this node and are written again every %d s", held, UNWRITABLE_RETRY.toSeconds());
        }
        if (!takenAtLast.isEmpty()) {
            LOG.infof("The outcome of jobs %s, refused before, is written", takenAtLast);
        }
        if (noneHeld && !unwritable.isEmpty()) { // the first held: tried again in UNWRITABLE_RETRY (then retryUnwritable)
            unwritableRetryAt = System.nanoTime() + UNWRITABLE_RETRY.toNanos();
        }
        if (unwritable.size() < unwritableCount) {
            synchronized (batchTaken) { // fewer held: room for the acquirer waiting in awaitAtMost
                batchTaken.notifyAll();
            }
        }
        unwritableCount = unwritable.size();
        return settled;
    }

    private boolean pastDeadline() {
        return stopping && System.nanoTime() - hardDeadlineNanos >= 0;
    }

    /** Writes everything submitted so far, giving up at the deadline. */
    void stop(long deadlineNanos) throws InterruptedException {
        hardDeadlineNanos = deadlineNanos;
        stopping = true;
        long left = deadlineNanos - System.nanoTime();
        thread.join(java.time.Duration.ofNanos(Math.max(left, 0) + 100_000_000L));
        if (thread.isAlive()) {
            thread.interrupt();
            thread.join(java.time.Duration.ofSeconds(1));
        }
    }
}
