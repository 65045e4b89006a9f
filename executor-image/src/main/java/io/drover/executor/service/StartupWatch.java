package io.drover.executor.service;

import java.time.Duration;
import java.util.Optional;

/**
 * Tells liveness when a start-up that has not finished never will. The start-up thread ends a
 * failed start itself (the cause as the termination message, then exit), and retries an
 * unreachable database for startupTimeout; but a thread ended by something no handler caught, or
 * a step that blocks past every timeout, left the node "starting" for good with liveness green:
 * never ready, never restarted, no cause shown.
 */
final class StartupWatch {
    /** Beyond startupTimeout: the start-up's own failure, and its exit, come first. */
    static final Duration MARGIN = Duration.ofSeconds(30);

    private final long beganNanos = System.nanoTime();
    private final Duration startupTimeout;

    StartupWatch(Duration startupTimeout) {
        this.startupTimeout = startupTimeout;
    }

    /**
     * Why a start-up that has not finished never will, or empty while it may still.
     *
     * @param thread    the start-up thread, null before it began
     * @param status    what the start-up waits for, as readiness says it
     * @param migrating a schema migration is running now
     */
    Optional<String> problem(Thread thread, String status, boolean migrating, long nowNanos) {
        if (thread != null && !thread.isAlive()) {
            return Optional.of("start-up ended without starting the node (the log says why): " + status);
        }
        Duration ran = Duration.ofNanos(nowNanos - beganNanos);
        // Not while a migration runs: one that is merely long (an index over a large job table)
        // would be killed and rolled back at every start, for good; its locks are bounded by
        // lock_timeout and Flyway's lock wait, so it ends, or fails and is retried as before.
        if (!migrating && ran.compareTo(startupTimeout.plus(MARGIN)) > 0) {
            return Optional.of("still starting after " + ran.toSeconds() + " s (startupTimeout " + startupTimeout + "): " + status);
        }
        return Optional.empty();
    }
}
