package io.drover.executor.engine;

import io.drover.contract.DatabaseDiagnosis;

/**
 * When this node last reached, and last failed to reach, the database, whatever the loop.
 * <ul>
 *   <li>The expiry sweep reads it: right after an outage every node's locks look expired, and a
 *       node that sweeps before the others have renewed would take their running jobs from them
 *       (duplicates). So a node sweeps only once the database has answered it for a quiet
 *       period since it came back, long enough for every live node to have renewed.</li>
 *   <li>Workers read it: while the last word from the database is a failure, no job starts. Its
 *       outcome could not be recorded, and if the node then died, or its locks lapsed, the job
 *       would run again elsewhere.</li>
 * </ul>
 */
final class DatabaseHealth {
    private volatile boolean everFailed;
    private volatile long lastFailureNanos;
    private volatile long lastSuccessNanos = System.nanoTime();
    /** The first success after the latest failure: when the database came back for this node. */
    private volatile long recoveredNanos;

    void succeeded() {
        long now = System.nanoTime();
        if (everFailed && lastFailureNanos - lastSuccessNanos >= 0) {
            recoveredNanos = now;
        }
        lastSuccessNanos = now;
    }

    /** Records the failure if it says the database was unreachable (not a bad statement or row). */
    void failed(Exception e) {
        if (DatabaseDiagnosis.unreachable(e)) {
            lastFailureNanos = System.nanoTime();
            everFailed = true;
        }
    }

    /** False while the latest database call of any loop failed as unreachable. */
    boolean reachable() {
        return !everFailed || lastSuccessNanos - lastFailureNanos > 0;
    }

    /** True if the database has answered for at least {@code nanos} since it last became unreachable. */
    boolean calmFor(long nanos) {
        return !everFailed || reachable() && System.nanoTime() - recoveredNanos >= nanos;
    }
}
