package io.drover.executor.engine;

import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.CompletionWriter;
import io.drover.executor.store.CompletionWriter.Kind;

/**
 * What became of one job taken from the queue; written to the database in batches by the
 * completion loop. {@code attemptDelta} is what the run changes in the job's attempts (see
 * {@link CompletionWriter.Entry}).
 */
public sealed interface Outcome {
    AcquiredJob job();

    /** The row change this outcome makes. */
    CompletionWriter.Entry entry();

    /** For metrics: succeeded, retried, deferred, dead_lettered. */
    String name();

    /** Done: deleted, or for a recurring timer moved to its next slot with its counters reset. */
    record Succeeded(AcquiredJob job) implements Outcome {
        public CompletionWriter.Entry entry() {
            return new CompletionWriter.Entry(job.recurring() ? Kind.NEXT_SLOT : Kind.DONE, job.id(), job.version(), 0, null, 0);
        }

        public String name() {
            return "succeeded";
        }
    }

    /** Failed with attempts left (or cut short by a shutdown): unlocked and due again after the delay. */
    record Retry(AcquiredJob job, long delayMillis, String error, int attemptDelta) implements Outcome {
        public CompletionWriter.Entry entry() {
            return new CompletionWriter.Entry(Kind.RETRY, job.id(), job.version(), delayMillis, error, attemptDelta);
        }

        public String name() {
            return "retried";
        }
    }

    /** A recurring timer's run failed: its next slot on its grid; a timer is never ended by failures. */
    record NextSlotAfterFailure(AcquiredJob job, String error, int attemptDelta) implements Outcome {
        public CompletionWriter.Entry entry() {
            return new CompletionWriter.Entry(Kind.NEXT_SLOT_FAILED, job.id(), job.version(), 0, error, attemptDelta);
        }

        public String name() {
            return "retried";
        }
    }

    /** Handed back unrun, due again after the delay: this node has no handler for its type. */
    record Deferred(AcquiredJob job, long delayMillis, String reason, int attemptDelta) implements Outcome {
        public CompletionWriter.Entry entry() {
            return new CompletionWriter.Entry(Kind.DEFER, job.id(), job.version(), delayMillis, reason, attemptDelta);
        }

        public String name() {
            return "deferred";
        }
    }

    /** Failed for good (attempts used up, permanent failure, a row out of range): moved to dead letters. */
    record DeadLetter(AcquiredJob job, String reason, int attemptDelta) implements Outcome {
        public CompletionWriter.Entry entry() {
            return new CompletionWriter.Entry(Kind.DEAD, job.id(), job.version(), 0, reason, attemptDelta);
        }

        public String name() {
            return "dead_lettered";
        }
    }
}
