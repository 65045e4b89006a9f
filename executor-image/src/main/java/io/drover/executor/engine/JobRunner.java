package io.drover.executor.engine;

import io.drover.executor.handler.HandlerRegistry;
import io.drover.executor.handler.JobContext;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.handler.NotRunnableHere;
import io.drover.executor.handler.PermanentJobFailure;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.JobLimits;
import io.drover.executor.store.JobStarts;
import io.drover.executor.store.Text;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Decides what happens to a job: before it starts (rows that must not run), when its handler
 * returns or throws (it catches every Throwable: nothing a handler does may kill a worker), and
 * when it timed out.
 */
final class JobRunner {
    static final int MAX_ERROR_CHARS = 4000;

    private final HandlerRegistry handlers;
    private final RetryPolicy retryPolicy;
    private final ExecutorMetrics metrics;
    private final String nodeName;
    private final BooleanSupplier stopping;

    /** @param stopping true once the node is shutting down (the only interrupt of a run that costs no attempt) */
    JobRunner(HandlerRegistry handlers, RetryPolicy retryPolicy, ExecutorMetrics metrics, String nodeName,
              BooleanSupplier stopping) {
        this.handlers = handlers;
        this.retryPolicy = retryPolicy;
        this.metrics = metrics;
        this.nodeName = nodeName;
        this.stopping = stopping;
    }

    /**
     * The outcome of a job that must not start, or null when it may. Rows written with plain
     * SQL can hold what the API refuses ({@link JobLimits}): they are dead-lettered with the
     * reason, before any attempt is charged. A type this node has no handler for is handed back
     * for a while (an older node during a rolling upgrade), then dead-lettered.
     */
    Outcome precheck(AcquiredJob job) {
        Outcome o = decideBeforeStart(job);
        if (o != null) {
            // A type no handler here knows is counted as one: producers choose type names, and a
            // meter per name they invent would grow without end on every node.
            metrics.handled(handlers.find(job.type()).isPresent() ? job.type() : UNHANDLED_TYPE, o.name());
        }
        return o;
    }

    /** The type label of outcomes of job types this node has no handler for. */
    static final String UNHANDLED_TYPE = "(no handler)";

    private Outcome decideBeforeStart(AcquiredJob job) {
        Optional<String> problem = JobLimits.dueAtProblem(job.dueAt(), Instant.now());
        if (problem.isPresent()) {
            return new Outcome.DeadLetter(job, "dueAt is out of range: " + problem.get(), 0);
        }
        if (job.recurring() && (problem = JobLimits.repeatProblem(job.repeatSeconds())).isPresent()) {
            return new Outcome.DeadLetter(job, "repeat interval is out of range: " + problem.get(), 0);
        }
        if ((problem = JobLimits.countersProblem(job.recurring(), job.attempts(), job.crashes(), job.deferrals())).isPresent()) {
            return new Outcome.DeadLetter(job, "a counter is out of range: " + problem.get(), 0);
        }
        if ((problem = JobLimits.payloadProblem(job.payloadBytes())).isPresent()) {
            return new Outcome.DeadLetter(job, "payload is too large: " + problem.get(), 0);
        }
        if (handlers.find(job.type()).isEmpty()) {
            String type = Text.storable(job.type());
            return handBack(job, "no handler for job type '" + type + "' on node " + nodeName + " (it has "
                    + handlers.types() + ")", 0);
        }
        return null;
    }

    /**
     * A suspect whose decisive run (one more crash makes it poison) must run alone, on a node whose
     * running jobs did not end within {@link ExecutionGate#SOLO_WAIT}: handed back, due again a
     * minute later, for a node that can run it alone then. Nothing charged (no attempt, its start
     * mark not yet written) and not counted as a hand-back: on a fleet always busy with long jobs,
     * sixty of them dead-lettered as poison a job never shown to be one.
     */
    Outcome notAloneHere(AcquiredJob job) {
        return new Outcome.Retry(job, RetryPolicy.DEFER_DELAY.toMillis(), "its decisive run (one more crash makes it"
                + " poison) runs alone on a node, and the jobs running on node " + nodeName + " did not end within "
                + ExecutionGate.SOLO_WAIT.toSeconds() + " s; handed back for a node that can run it alone", 0);
    }

    /**
     * Handed back for another node (no handler here, or {@link NotRunnableHere}): due again after
     * {@link RetryPolicy#DEFER_DELAY}; dead-lettered with the reason once the nodes that took it
     * handed it back {@link RetryPolicy#MAX_DEFERRALS} times. No attempt charged: {@code delta}
     * gives back what a watched run's start mark charged (-1), else 0.
     */
    private static Outcome handBack(AcquiredJob job, String why, int delta) {
        if (job.deferrals() + 1 >= RetryPolicy.MAX_DEFERRALS) {
            return new Outcome.DeadLetter(job, why + ": handed back " + (job.deferrals() + 1)
                    + " times by the nodes that took it", delta);
        }
        return new Outcome.Deferred(job, RetryPolicy.DEFER_DELAY.toMillis(), why + "; handed back for another node", delta);
    }

    /**
     * Runs a job's handler. {@code watched}: a start mark charged this run's attempt already (a
     * suspect's run); otherwise the outcome charges it.
     */
    Outcome run(AcquiredJob job, JobStarts.Started started, boolean watched) {
        metrics.started(job.dueAt());
        long start = System.nanoTime();
        Outcome outcome = execute(job, started, watched);
        metrics.ran(job.type(), System.nanoTime() - start);
        return outcome;
    }

    /**
     * Counts the outcome a run ends with, once: the one written, which a timeout or a shutdown
     * may have put in place of the handler's (WorkerPool).
     */
    Outcome counted(AcquiredJob job, Outcome outcome) {
        metrics.handled(job.type(), outcome.name());
        return outcome;
    }

    /** A run a shutdown past its grace period cut short: not a failure, no attempt; it runs again. */
    Outcome interruptedByShutdown(AcquiredJob job, boolean watched) {
        return new Outcome.Retry(job, 0, "interrupted by executor shutdown", watched ? -1 : 0);
    }

    private Outcome execute(AcquiredJob job, JobStarts.Started started, boolean watched) {
        Optional<JobHandler> handler = handlers.find(job.type());
        if (handler.isEmpty()) { // precheck ran first; kept so this method stands on its own
            return decideBeforeStart(job);
        }
        JobContext context = new JobContext(job.id(), job.type(), started.payload(), started.attempt(),
                job.maxAttempts(), job.dueAt());
        try {
            handler.get().execute(context);
            return new Outcome.Succeeded(job);
        } catch (PermanentJobFailure e) {
            return new Outcome.DeadLetter(job, describe(e), charge(watched));
        } catch (NotRunnableHere e) {
            return handBack(job, Text.storable(String.valueOf(e.getMessage())) + " (node " + nodeName + ")", watched ? -1 : 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (stopping.getAsBoolean()) {
                // A shutdown past its grace period cut the run short (WorkerPool also hands back
                // a run the shutdown interrupted that ended in another exception).
                return interruptedByShutdown(job, watched);
            }
            // Neither a shutdown nor its timeout (the worker pool replaces this outcome then): the
            // handler threw it of its own accord, a failed attempt like any other exception.
            // Handed back at no cost it would run again at once, on and on, never dead-lettered.
            return failed(job, started.attempt(), describe(e), watched);
        } catch (Throwable t) {
            return failed(job, started.attempt(), describe(t), watched);
        }
    }

    /** A failed attempt: retried with backoff, dead-lettered when attempts are used up; a recurring timer goes to its next slot. */
    Outcome failed(AcquiredJob job, int attempt, String error, boolean watched) {
        int delta = charge(watched);
        if (job.recurring()) {
            return new Outcome.NextSlotAfterFailure(job, error, delta);
        }
        if (attempt >= job.maxAttempts()) {
            return new Outcome.DeadLetter(job, "failed " + attempt + " of " + job.maxAttempts()
                    + " attempts; last error: " + error, delta);
        }
        return new Outcome.Retry(job, retryPolicy.delayMillis(attempt), error, delta);
    }

    /** What a failed run adds to attempts: 1, unless its start mark charged it already. */
    private static int charge(boolean watched) {
        return watched ? 0 : 1;
    }

    /** A run that outlived its jobTimeout: a failed attempt. */
    Outcome timedOut(AcquiredJob job, int attempt, Duration timeout, boolean stoppedWhenInterrupted, boolean watched) {
        return failed(job, attempt, "timed out after " + timeout + (stoppedWhenInterrupted
                ? " (jobTimeout); the handler was interrupted"
                : " (jobTimeout) and did not stop when interrupted; its worker thread was replaced"), watched);
    }

    /** A job the engine itself failed on (a bug): given back to run again, never lost, at no attempt's cost. */
    Outcome internalError(AcquiredJob job, Throwable t, boolean startMarked) {
        return new Outcome.Retry(job, retryPolicy.delayMillis(1), "executor error: " + describe(t), startMarked ? -1 : 0);
    }

    /**
     * The exception and a bounded stack trace: enough to debug a dead letter, never megabytes.
     */
    static String describe(Throwable t) {
        StringWriter out = new StringWriter();
        try {
            t.printStackTrace(new PrintWriter(out));
        } catch (RuntimeException | Error e) { // a throwable whose toString() or stack throws
            out = new StringWriter().append(t.getClass().getName()).append(" (its description failed: ")
                    .append(e.getClass().getName()).append(")");
        }
        String text = Text.storable(out.toString());
        return text.length() <= MAX_ERROR_CHARS ? text : text.substring(0, MAX_ERROR_CHARS) + "\n\t...";
    }
}
