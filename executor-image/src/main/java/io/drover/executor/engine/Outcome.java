package io.drover.executor.engine;

import io.drover.executor.store.AcquiredJob;

/** What became of one execution; written to the database in batches by the completion loop. */
public sealed interface Outcome {
    AcquiredJob job();

    /** Done: deleted, or for a recurring timer rescheduled to its next slot. */
    record Succeeded(AcquiredJob job) implements Outcome {
    }

    /** Failed with attempts left: unlocked and due again after the backoff. */
    record Retry(AcquiredJob job, long delayMillis, String error) implements Outcome {
    }

    /** Failed for good (attempts used up, unknown type, bad payload): moved to dead letters. */
    record DeadLetter(AcquiredJob job, String reason) implements Outcome {
    }
}
