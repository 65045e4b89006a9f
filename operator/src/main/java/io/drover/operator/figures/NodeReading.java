package io.drover.operator.figures;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * What an executor node answers at GET /q/drover/node (the executor's NodeFigures): gauges as
 * they are, counters and timers as running totals since the node started.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeReading(
        String node, String lockMode,
        int threads, int busyThreads, int queueSize, int queued, int held,
        double dueBacklog, double dueLagSeconds, double deadLetters,
        double executed, double succeeded, double retried, double deadLettered,
        double executionSeconds, double started, double startDelaySeconds,
        double acquisitions, double acquisitionSeconds, double acquiredJobs, double acquisitionErrors,
        double globalLockWaitSeconds, double optimisticLockFailures,
        /* Why the node cannot take jobs now ("Reason: message"), or null; absent from older executors. */
        String problem) {
}
