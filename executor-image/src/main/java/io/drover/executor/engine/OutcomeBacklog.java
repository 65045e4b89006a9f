package io.drover.executor.engine;

/**
 * The job outcomes waiting to be written, as the acquirer sees them: it takes no more jobs while
 * too many wait ({@link AcquisitionLoop}), and the completion loop tells it when it has taken a
 * batch to write, so acquisition resumes at that moment rather than at its next look.
 */
interface OutcomeBacklog {
    /**
     * Waits until at most {@code max} outcomes wait (not counting the batch being written), or
     * {@code timeoutMillis}.
     *
     * @return whether at most {@code max} wait
     */
    boolean awaitAtMost(int max, long timeoutMillis) throws InterruptedException;
}
