package io.drover.executor.handler;

/**
 * Runs jobs of one {@link #type()}. Implementations must be thread-safe: the executor calls
 * {@link #execute} from {@code threads} worker threads at once.
 *
 * <p>Return normally for success. Throw {@link PermanentJobFailure} (for example
 * {@link InvalidPayloadException}) when retrying cannot help: the job goes straight to dead
 * letters. Any other exception is retried with exponential backoff until the job's
 * {@code maxAttempts} are used up. Execution is at-least-once: after a node crash a job may run
 * again, so handlers should be idempotent.
 */
public interface JobHandler {
    /** The job type this handler runs, e.g. {@code "noop"}. */
    String type();

    void execute(JobContext job) throws Exception;
}
