package io.drover.executor.engine;

import io.drover.contract.Causes;
import org.jboss.logging.Logger;

/**
 * Logs a recurring problem once when it starts, once when its message changes, and once when
 * it clears, instead of once per attempt: a database outage must not flood the log.
 */
final class ProblemLog {
    private final Logger log;
    private final String activity;
    private String current;
    private int failures;

    ProblemLog(Logger log, String activity) {
        this.log = log;
        this.activity = activity;
    }

    synchronized void failed(Throwable e) {
        failures++;
        String message = describe(e);
        if (!message.equals(current)) {
            current = message;
            log.warnf("%s failing (retrying with backoff): %s", activity, message);
        }
    }

    /** The exception and, when it wraps another (a driver error around a socket timeout), the root cause. */
    static String describe(Throwable e) {
        Throwable root = Causes.root(e);
        String text = e.getClass().getSimpleName() + ": " + e.getMessage();
        return root == e ? text : text + " (cause: " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
    }

    synchronized void succeeded() {
        if (current != null) {
            log.infof("%s recovered after %d failed attempts", activity, failures);
            current = null;
            failures = 0;
        }
    }

    /** The current problem's description, or null. */
    synchronized String current() {
        return current;
    }

    synchronized int consecutiveFailures() {
        return failures;
    }
}
