package io.drover.executor.service;

import io.drover.contract.Causes;
import io.drover.contract.DatabaseDiagnosis;
import io.drover.contract.NodeProblem;
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
    /**
     * What waiting does not fix: refused credentials, a missing database, a missing privilege, and
     * a failure that is not the database's at all (no SQLException, I/O failure or timeout in it:
     * a migration that does not validate).
     */
    private static final Set<NodeProblem> PERMANENT = Set.of(NodeProblem.DatabaseAuthenticationFailed,
            NodeProblem.DatabaseNotFound, NodeProblem.DatabasePermissionDenied, NodeProblem.ExecutorError);
    private static final long MAX_BACKOFF_MILLIS = 15_000;

    /** A start-up step found what no waiting fixes, and names it: the node fails at once with this problem. */
    static final class Unsuitable extends Exception {
        private final NodeProblem problem;

        Unsuitable(NodeProblem problem, String message) {
            super(message);
            this.problem = problem;
        }
    }

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
        private final NodeProblem problem;

        Failed(NodeProblem problem, String message, Throwable cause) {
            super(message, cause);
            this.problem = problem;
        }

        NodeProblem problem() {
            return problem;
        }
    }

    /**
     * What a failure of a start-up step is: the database's problem in the words a running node
     * uses for it ({@link DatabaseDiagnosis#of}: a read-only database at start-up is
     * DatabaseReadOnly, as it is later), or MigrationFailed when the step fails for a reason of its
     * own (a migration that does not validate, a statement the database refuses).
     */
    static NodeProblem atStartup(NodeProblem diagnosed) {
        return diagnosed == NodeProblem.DatabaseError || diagnosed == NodeProblem.ExecutorError
                ? NodeProblem.MigrationFailed : diagnosed;
    }

    private DatabaseStartup() {
    }

    /**
     * Runs the step until it succeeds, reporting each failure's diagnosis to {@code failing} (in
     * the diagnosis's words, never the driver's text: readiness and the node's figures show it).
     *
     * @throws Failed when the problem is permanent, or still there after {@code timeout}
     */
    static void retry(String what, Step step, Duration timeout, Consumer<DatabaseDiagnosis> failing)
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
            } catch (Unsuitable e) {
                throw new Failed(e.problem, what + " failed: " + e.getMessage(), e);
            } catch (Exception e) {
                String cause = cause(e);
                DatabaseDiagnosis diagnosis = DatabaseDiagnosis.of(e);
                NodeProblem diagnosed = diagnosis.problem();
                NodeProblem problem = atStartup(diagnosed);
                if (PERMANENT.contains(diagnosed)) {
                    throw new Failed(problem, what + " failed: " + cause, e);
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new Failed(problem, what + " still failing after startupTimeout " + timeout + ": " + cause, e);
                }
                if (!cause.equals(last)) {
                    LOG.warnf("%s failing, retrying for up to %s: %s", what, timeout, cause);
                    last = cause;
                }
                // The diagnosis, never the driver's text (which can name hosts and roles; the log has it):
                // readiness answers anyone who reaches the pod, and the operator reads the figures.
                failing.accept(diagnosis);
                Thread.sleep(backoff);
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
            }
        }
    }

    /** The innermost message, in one line: what a human needs to see first. */
    static String cause(Throwable e) {
        SQLException sql = Causes.find(e, SQLException.class);
        Throwable root = sql != null ? sql : Causes.root(e);
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        String line = message.replaceAll("\\s+", " ").trim();
        return sql != null && sql.getSQLState() != null ? line + " (SQLState " + sql.getSQLState() + ")" : line;
    }
}
