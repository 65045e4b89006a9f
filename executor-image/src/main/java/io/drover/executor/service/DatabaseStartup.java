package io.drover.executor.service;

import org.jboss.logging.Logger;

import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Gets a starting node past the database: connect and migrate, retried with back-off for
 * {@code startupTimeout}. A database that is restarting or failing over (RDS: 60-120 s) is
 * waited for instead of ending the process at once, which in Kubernetes means CrashLoopBackOff
 * with growing back-off long after the database is back. What waiting cannot fix (a wrong
 * password, a database or role that does not exist, a migration that does not validate) fails
 * at once, with the cause.
 */
final class DatabaseStartup {
    private static final Logger LOG = Logger.getLogger(DatabaseStartup.class);
    /** invalid password / authorization, database missing, insufficient privilege. */
    private static final Set<String> PERMANENT = Set.of("28P01", "28000", "3D000", "42501");
    private static final long MAX_BACKOFF_MILLIS = 15_000;

    /** A start-up step that may fail. */
    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }

    /**
     * The node cannot start; the message is the cause, in one line, and the reason a word for
     * it that the operator shows as the ExecutorCluster's condition reason (it reads it from the
     * pod's termination message, "Reason: cause").
     */
    static final class Failed extends Exception {
        private final String reason;

        Failed(String reason, String message, Throwable cause) {
            super(message, cause);
            this.reason = reason;
        }

        String reason() {
            return reason;
        }
    }

    /** The reason word of a failure: what the operator and the user see first. */
    static String reason(Throwable e, boolean timedOut) {
        SQLException sql = sqlException(e);
        String state = sql == null || sql.getSQLState() == null ? "" : sql.getSQLState();
        return switch (state) {
            case "28P01", "28000" -> "DatabaseAuthenticationFailed";
            case "3D000" -> "DatabaseNotFound";
            case "42501" -> "DatabasePermissionDenied";
            default -> timedOut && (state.startsWith("08") || (sql == null && transientWithoutSql(e)))
                    ? "DatabaseUnreachable" : "MigrationFailed";
        };
    }

    private DatabaseStartup() {
    }

    /**
     * Runs the step until it succeeds, reporting each distinct problem to {@code status}.
     *
     * @throws Failed when the problem is permanent, or still there after {@code timeout}
     */
    static void retry(String what, Step step, Duration timeout, Consumer<String> status)
            throws Failed, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long backoff = 500;
        String last = null;
        while (true) {
            try {
                step.run();
                if (last != null) {
                    LOG.infof("%s succeeded after: %s", what, last);
                }
                return;
            } catch (Exception e) {
                String cause = cause(e);
                SQLException sql = sqlException(e);
                boolean permanent = sql == null ? !transientWithoutSql(e)
                        : sql.getSQLState() != null && PERMANENT.contains(sql.getSQLState());
                if (permanent) {
                    throw new Failed(reason(e, false), what + " failed: " + cause, e);
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new Failed(reason(e, true), what + " still failing after startupTimeout " + timeout + ": " + cause, e);
                }
                if (!cause.equals(last)) {
                    LOG.warnf("%s failing, retrying for up to %s: %s", what, timeout, cause);
                    last = cause;
                }
                status.accept(what + ": " + cause);
                Thread.sleep(backoff);
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
            }
        }
    }

    /** Connection-level failures that carry no SQLException (e.g. a pool timeout). */
    private static boolean transientWithoutSql(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.io.IOException || t instanceof java.util.concurrent.TimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static SQLException sqlException(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                return s;
            }
        }
        return null;
    }

    /** The innermost message, in one line: what a human needs to see first. */
    static String cause(Throwable e) {
        Throwable root = e;
        SQLException sql = sqlException(e);
        if (sql != null) {
            root = sql;
        } else {
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        String line = message.replaceAll("\\s+", " ").trim();
        return sql != null && sql.getSQLState() != null ? line + " (SQLState " + sql.getSQLState() + ")" : line;
    }
}
