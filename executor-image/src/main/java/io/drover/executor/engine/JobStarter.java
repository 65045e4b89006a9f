package io.drover.executor.engine;

import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.JobStarts;
import org.jboss.logging.Logger;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Writes start marks ({@link JobStarts}) for the workers, group-commit style: a worker asks to
 * start a job and waits; this thread writes every request that arrived meanwhile in one
 * statement. An idle node pays one round trip per job; a busy one starts a whole group of jobs
 * per round trip. A worker never runs a job before its mark is committed, so a node that dies
 * leaves an exact record of what it was running, and a job whose lock was swept while it sat in
 * the queue is never run here. While the database is unreachable no job starts (its lock could
 * not be confirmed); requests whose lease runs out meanwhile are refused.
 */
final class JobStarter {
    private static final Logger LOG = Logger.getLogger(JobStarter.class);
    private static final int MAX_BATCH = 512;

    private record Request(AcquiredJob job, CompletableFuture<JobStarts.Started> result) {
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
        this.thread = Thread.ofPlatform().name("drover-starter-" + nodeName).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /**
     * Marks the job started and returns its attempt number and payload; null if this node no
     * longer holds its lock (the job must not run here).
     */
    JobStarts.Started start(AcquiredJob job) throws InterruptedException {
        Request request = new Request(job, new CompletableFuture<>());
        pending.add(request);
        try {
            return request.result().get();
        } catch (InterruptedException e) {
            pending.remove(request); // not yet written: it never starts
            throw e;
        } catch (ExecutionException e) {
            throw new IllegalStateException("start mark failed", e.getCause());
        }
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
                // stop() interrupts: what was not written never starts; the loop condition decides
                batch.forEach(r -> r.result().complete(null));
            } catch (RuntimeException | Error e) {
                batch.forEach(r -> r.result().completeExceptionally(e));
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
            // A request whose lease ran out while the database was unreachable is refused: its
            // lock may have been swept, and running it could run it twice.
            batch.removeIf(r -> !held.leaseValid(r.job().id()) && r.result().complete(null));
            if (batch.isEmpty()) {
                return;
            }
            long sent = System.nanoTime();
            try (Connection c = dataSource.getConnection()) {
                Map<Long, JobStarts.Started> started = starts.mark(c, batch.stream().map(r -> r.job().id()).toList());
                problems.succeeded();
                for (Request r : batch) {
                    JobStarts.Started s = started.get(r.job().id());
                    if (s != null) {
                        held.started(r.job().id(), sent);
                    }
                    r.result().complete(s);
                }
                return;
            } catch (Exception e) {
                database.failed(e);
                problems.failed(e);
                Thread.sleep(backoff);
                backoff = Math.min(backoff * 2, maxBackoffMillis);
            }
        }
    }

    /** Called once the workers are done: answers what is still pending, then ends. */
    void stop() throws InterruptedException {
        stopping = true;
        thread.interrupt();
        thread.join(java.time.Duration.ofSeconds(10));
        for (Request r; (r = pending.poll()) != null; ) {
            r.result().complete(null);
        }
    }
}
