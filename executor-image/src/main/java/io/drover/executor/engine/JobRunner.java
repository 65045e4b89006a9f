package io.drover.executor.engine;

import io.drover.executor.handler.HandlerRegistry;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.handler.PermanentJobFailure;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.AcquiredJob;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Optional;

/**
 * Runs one job and turns whatever happens into an {@link Outcome}. It catches every
 * Throwable: nothing a handler does may kill a worker thread or the node.
 */
final class JobRunner {
    static final int MAX_ERROR_CHARS = 4000;

    private final HandlerRegistry handlers;
    private final RetryPolicy retryPolicy;
    private final ExecutorMetrics metrics;

    JobRunner(HandlerRegistry handlers, RetryPolicy retryPolicy, ExecutorMetrics metrics) {
        this.handlers = handlers;
        this.retryPolicy = retryPolicy;
        this.metrics = metrics;
    }

    Outcome run(AcquiredJob job) {
        metrics.started(job.dueAt());
        long start = System.nanoTime();
        Outcome outcome = execute(job);
        String name = switch (outcome) {
            case Outcome.Succeeded s -> "succeeded";
            case Outcome.Retry r -> "retried";
            case Outcome.DeadLetter d -> "dead_lettered";
        };
        metrics.executed(job.type(), name, System.nanoTime() - start);
        return outcome;
    }

    private Outcome execute(AcquiredJob job) {
        Optional<JobHandler> handler = handlers.find(job.type());
        if (handler.isEmpty()) {
            return new Outcome.DeadLetter(job, "no handler for job type '" + job.type().replace("\u0000", "\\0")
                    + "'; this node has handlers for " + handlers.types());
        }
        try {
            handler.get().execute(job.context());
            return new Outcome.Succeeded(job);
        } catch (PermanentJobFailure e) {
            return new Outcome.DeadLetter(job, describe(e));
        } catch (InterruptedException e) {
            // Only a shutdown past its grace period interrupts workers: give the job back.
            Thread.currentThread().interrupt();
            return new Outcome.Retry(job, 0, "interrupted by executor shutdown");
        } catch (Throwable t) {
            String error = describe(t);
            if (job.attempt() >= job.maxAttempts()) {
                return new Outcome.DeadLetter(job, "failed " + job.attempt() + " of " + job.maxAttempts()
                        + " attempts; last error: " + error);
            }
            return new Outcome.Retry(job, retryPolicy.delayMillis(job.attempt()), error);
        }
    }

    /**
     * The exception and a bounded stack trace: enough to debug a dead letter, never megabytes.
     * NUL characters are escaped: PostgreSQL text cannot hold them, and one such message would
     * fail every write of its completion batch.
     */
    static String describe(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        String text = out.toString().replace("\u0000", "\\0");
        return text.length() <= MAX_ERROR_CHARS ? text : text.substring(0, MAX_ERROR_CHARS) + "\n\t...";
    }
}
