package io.drover.executor.engine;

/**
 * When this node last reached, and last failed to reach, the database, whatever the loop.
 * <ul>
 *   <li>The expiry sweep reads it: right after an outage every node's locks look expired, and a
 *       node that sweeps before the others have renewed would take their running jobs from them
 *       (duplicates). So a node sweeps only after a quiet period without failures, long enough
 *       for every live node to have renewed.</li>
 *   <li>Workers read it: while the last word from the database is a failure, no job starts. Its
 *       outcome could not be recorded, and if the node then died, or its locks lapsed, the job
 *       would run again elsewhere.</li>
 * </ul>
 */
final class DatabaseHealth {
    private volatile boolean everFailed;
    private volatile long lastFailureNanos;
    private volatile long lastSuccessNanos = System.nanoTime();

    void succeeded() {
        lastSuccessNanos = System.nanoTime();
    }

    /** False while the latest database call of any loop failed as unreachable. */
    boolean reachable() {
        return !everFailed || lastSuccessNanos - lastFailureNanos > 0;
    }

    /** Records the failure if it says the database was unreachable (not a bad statement or row). */
    void failed(Exception e) {
        if (unreachable(e)) {
            lastFailureNanos = System.nanoTime();
            everFailed = true;
        }
    }

    /**
     * Connection failures (08), the server shutting down or starting (57P), out of resources
     * (53), and errors without a SQLState (a pool timeout, an I/O error).
     */
    static boolean unreachable(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.sql.SQLException s && s.getSQLState() != null) {
                String state = s.getSQLState();
                return state.startsWith("08") || state.startsWith("57P") || state.startsWith("53");
            }
        }
        return true;
    }

    /** True if a database call failed within the last {@code nanos}. */
    boolean failedWithin(long nanos) {
        return everFailed && System.nanoTime() - lastFailureNanos < nanos;
    }
}
