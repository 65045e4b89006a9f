package io.drover.executor.engine;

import io.drover.executor.store.JobStarts;
import io.drover.executor.store.SqlErrors;
import org.jboss.logging.Logger;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Does the database work some jobs need right before they run ({@link JobStarts}), for the
 * workers, group-commit style: a worker asks and waits; this thread serves every request that
 * arrived meanwhile in one statement per kind, so a burst of suspects after a crash costs a
 * round trip per group, not per job. Start marks (suspects) are committed before the handler
 * runs, so a node that dies leaves an exact record of the watched runs it had going; payload
 * reads fetch payloads too large to come with the acquired row. Both confirm the lock: a job
 * whose lock went elsewhere is never run here. While the database is unreachable these jobs
 * wait; requests whose lease runs out meanwhile are refused, and a mark sent meanwhile whose
 * answer never came is answered {@link #FATE_UNKNOWN}, for its worker to hand the job back.
 */
final class JobStarter {
    private static final Logger LOG = Logger.getLogger(JobStarter.class);
    private static final int MAX_BATCH = 512;

    /**
     * The answer for a start mark that was sent but whose fate this node could not learn (its
     * connection failed, and then its lease ran out or the node stopped before a try got an
     * answer): it may have committed, charging the attempt and setting started_at. The job must
     * not run (its lease is out, or the node is stopping) and its lock must not just be dropped:
     * a row left with a mark is counted as a crash when its lock expires, and at maxCrashes
     * dead-lettered as poison, though it never ran. The worker hands it back instead, giving the
     * charge back if the mark is there (a negative attempt delta applies only to a marked row,
     * {@code JobSql.ATTEMPTS_AFTER_RUN}), in its tenure. Compared by identity.
     */
    static final JobStarts.Started FATE_UNKNOWN = new JobStarts.Started(0, null);

    private static final class Request {
        final HeldJobs.Lease lease;
        final boolean mark;
        final CompletableFuture<JobStarts.Started> result = new CompletableFuture<>();
        /**
         * A mark sent to the database: it may be in the row unless an answer came (which completes
         * the request). Written and read by the starter's thread only.
         */
        boolean sent;

        Request(HeldJobs.Lease lease, boolean mark) {
            this.lease = lease;
            this.mark = mark;
        }

        long id() {
            return lease.id();
        }

        boolean mark() {
            return mark;
        }

        /** Answers a request given up on: unknown if its mark may have gone in, else not held (nothing written). */
        boolean giveUp() {
            return result.complete(sent ? FATE_UNKNOWN : null);
        }
    }

    /**
     * The database refused to record a job's start, written alone (not a connection failure): the
     * job must not run. If the row is to blame ({@link #rowsFault}: a trigger that refuses it, a
     * value the statement cannot take) its worker dead-letters it with this message; otherwise (a
     * server error on that row, a permission) it hands it back for a later try.
     */
    static final class StartRefused extends RuntimeException {
        final boolean rowsFault;

        StartRefused(Exception cause) {
            super("the database refused to record its start: " + cause.getMessage().lines().findFirst().orElse("")
                    + (cause instanceof SQLException s ? " (SQLState " + s.getSQLState() + ")" : ""), cause);
            this.rowsFault = SqlErrors.rowRefused(cause);
        }
    }

    private final LinkedBlockingQueue<Request> pending = new LinkedBlockingQueue<>();
    private final DataSource dataSource;
    private final JobStarts starts;
    private final HeldJobs held;
    private final DatabaseHealth database;
    private final Heartbeats.Beat beat;
    private final long maxBackoffMillis;
    private final ProblemLog problems = new ProblemLog(LOG, "Starting jobs");
    private final Thread thread;
    private volatile boolean stopping;

    JobStarter(DataSource dataSource, JobStarts starts, HeldJobs held, DatabaseHealth database, Heartbeats heartbeats,
               long maxBackoffMillis, String nodeName) {
        this.dataSource = dataSource;
        this.starts = starts;
        this.held = held;
        this.database = database;
        this.beat = heartbeats.register("start");
        this.maxBackoffMillis = maxBackoffMillis;
        this.thread = Thread.ofPlatform().name("drover-starter-" + nodeName).unstarted(beat.guarded(this::run, LOG));
    }

    void start() {
        thread.start();
    }

    /**
     * Marks the job started (a suspect's watched run), or reads its payload (an ordinary job
     * with a large payload), and returns its attempt number and payload; null if this node no
     * longer holds its lock, or its lease ran out before anything was written (the job must not
     * run here); {@link #FATE_UNKNOWN} if a mark was sent but no answer came before its lease ran
     * out or the node stopped (the job must not run, and is to be handed back).
     *
     * <p>Interrupted (a shutdown past its grace period) before the request was taken into a
     * batch, it throws at once: nothing was written. Once taken, the mark may commit and charge
     * an attempt: it waits for the batch's answer and returns it with the interrupt still set,
     * so the caller knows the charge to give back and does not run the job.
     *
     * @throws StartRefused when the database refused this job's start
     */
    JobStarts.Started start(HeldJobs.Lease lease, boolean mark) throws InterruptedException {
        Request request = new Request(lease, mark);
        pending.add(request);
        try {
            return request.result.get();
        } catch (InterruptedException e) {
            if (pending.remove(request)) {
                throw e; // not yet written: it never starts
            }
            return answerOf(request);
        } catch (ExecutionException e) {
            throw failure(e);
        }
    }

    /**
     * The batch's answer, waited for whatever interrupts come: the loop answers every batch, when
     * its statement ends (within the engine's database timeout) or, for one still waiting to be
     * written, when it stops.
     */
    private static JobStarts.Started answerOf(Request request) {
        try {
            while (true) {
                try {
                    return request.result.get();
                } catch (InterruptedException again) {
                    // keep waiting: the interrupt is restored on the way out
                } catch (ExecutionException e) {
                    throw failure(e);
                }
            }
        } finally {
            Thread.currentThread().interrupt();
        }
    }

    private static RuntimeException failure(ExecutionException e) {
        return e.getCause() instanceof StartRefused refused ? refused
                : new IllegalStateException("start mark failed", e.getCause());
    }

    private void run() {
        List<Request> batch = new ArrayList<>();
        while (!stopping || !pending.isEmpty()) {
            beat.beat();
            try {
                Request first = pending.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                pending.drainTo(batch, MAX_BATCH - 1);
                writeUntilDone(batch);
            } catch (InterruptedException e) {
                // stop() interrupts: what was not written never starts, and a mark sent without an
                // answer is handed back (FATE_UNKNOWN); the loop condition decides
                batch.forEach(Request::giveUp);
            } catch (RuntimeException | Error e) {
                batch.forEach(r -> r.result.completeExceptionally(e));
                LOG.errorf(e, "Start marks failed unexpectedly");
            } finally {
                batch.clear();
            }
        }
    }

    private void writeUntilDone(List<Request> batch) throws InterruptedException {
        long backoff = 50;
        while (true) {
            beat.beat();
            // Flagged before the check below: a flagged lease is never dropped unstarted
            // (HeldJobs.Lease#markSent), so one still valid now stays held while its mark is out.
            batch.forEach(r -> r.lease.markSent |= r.mark);
            // A request whose lease ran out while the database was unreachable is refused: its
            // lock may have been swept, and running it could run it twice.
            batch.removeIf(r -> !held.valid(r.lease) && r.giveUp());
            if (batch.isEmpty()) {
                return;
            }
            long sentNanos = System.nanoTime();
            try (Connection c = dataSource.getConnection()) {
                batch.forEach(r -> r.sent |= r.mark);
                List<Long> marks = batch.stream().filter(Request::mark).map(Request::id).toList();
                List<Long> reads = batch.stream().filter(r -> !r.mark()).map(Request::id).toList();
                Map<Long, JobStarts.Started> marked = marks.isEmpty() ? Map.of() : starts.mark(c, marks);
                Map<Long, JobStarts.Started> read = reads.isEmpty() ? Map.of() : starts.payloads(c, reads);
                problems.succeeded();
                database.succeeded();
                for (Request r : batch) {
                    JobStarts.Started s = (r.mark() ? marked : read).get(r.id());
                    if (s != null && r.mark()) {
                        held.renewed(r.lease, sentNanos); // the mark renewed the lock
                    }
                    r.result.complete(s);
                }
                return;
            } catch (Exception e) {
                database.failed(e);
                problems.failed(e);
                if (!SqlErrors.worthRetrying(e)) {
                    refused(batch, e);
                    return;
                }
                Thread.sleep(backoff);
                backoff = Math.min(backoff * 2, maxBackoffMillis);
            }
        }
    }

    /**
     * The database refused the batch's statement, not the connection: some row of it may be one
     * it cannot mark or read. Retried as it is, the batch would hold up every later start on this
     * node for good, its workers waiting, while this loop still beat. So each request is written
     * alone, and one the database refuses alone fails ({@link StartRefused}): dead-lettered if the
     * row is to blame, handed back otherwise. Failures worth retrying (the database away) are
     * retried with back-off, the batch as it is.
     */
    private void refused(List<Request> batch, Exception e) throws InterruptedException {
        if (batch.size() == 1) {
            batch.getFirst().result.completeExceptionally(new StartRefused(e));
            return;
        }
        for (Request r : List.copyOf(batch)) {
            writeUntilDone(new ArrayList<>(List.of(r)));
        }
    }

    /** Called once the workers are done: answers what is still pending, then ends, waiting at most {@code max}. */
    void stop(java.time.Duration max) throws InterruptedException {
        stopping = true;
        thread.interrupt();
        if (max.isPositive()) {
            thread.join(max);
        }
        for (Request r; (r = pending.poll()) != null; ) {
            r.result.complete(null);
        }
    }
}
