package io.drover.contract;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.util.concurrent.TimeoutException;

/**
 * What a failure says about the database, for a node's readiness and status: a problem (its word
 * is the ExecutorCluster's condition reason) and a sentence with the SQLState. Never the driver's
 * text: it can name users, tables and hosts, and readiness answers whoever reaches the pod.
 * Both engines diagnose their failures here, so a database that refuses the credentials reads
 * the same from a Drover node and a Flowable node.
 */
public record DatabaseDiagnosis(NodeProblem problem, String message) {
    /**
     * A write refused by a server that takes only reads: the connection reached a replica, as one
     * opened before a failover does when the old primary comes back as a reader (Aurora), or when
     * stale DNS still names it. Not the statement's fault: the database is unreachable for writes
     * on this connection, and a new one may reach the new primary.
     */
    public static final String READ_ONLY = "25006";

    /**
     * The pool's own check of a connection (Agroal's, which both engines' readiness runs) failed
     * without an exception: the connection did not answer its check query.
     */
    public static final DatabaseDiagnosis POOL_CHECK_FAILED = new DatabaseDiagnosis(NodeProblem.DatabaseUnreachable,
            "a connection of the node's pool failed its check");

    /** The problem's word. */
    public String reason() {
        return problem.name();
    }

    /** "Reason: message", the form of a node's termination message. */
    @Override
    public String toString() {
        return reason() + ": " + message;
    }

    public static DatabaseDiagnosis of(Throwable e) {
        if (!fromTheDatabase(e)) {
            return new DatabaseDiagnosis(NodeProblem.ExecutorError, "the engine fails with " + e.getClass().getSimpleName()
                    + ", not a database error; the node's log has the detail");
        }
        String state = SqlStates.first(e);
        String code = SqlStates.describe(e);
        if (READ_ONLY.equals(state)) {
            return new DatabaseDiagnosis(NodeProblem.DatabaseReadOnly, "the database takes only reads (" + code + "):"
                    + " database.host must name the primary (on Aurora or RDS, the writer endpoint), and neither the role"
                    + " nor the database may default to read-only transactions");
        }
        if (state != null && state.startsWith("28")) {
            return new DatabaseDiagnosis(NodeProblem.DatabaseAuthenticationFailed, "the database refuses the credentials (" + code + ")");
        }
        if ("3D000".equals(state)) {
            return new DatabaseDiagnosis(NodeProblem.DatabaseNotFound, "the database does not exist (" + code + ")");
        }
        if ("42501".equals(state)) {
            return new DatabaseDiagnosis(NodeProblem.DatabasePermissionDenied, "the role may not read or write the job tables ("
                    + code + ")");
        }
        if (state != null && state.startsWith("53")) {
            return new DatabaseDiagnosis(NodeProblem.DatabaseOutOfResources, "the database is out of connections, memory or disk ("
                    + code + ")");
        }
        if (unreachable(e)) {
            return new DatabaseDiagnosis(NodeProblem.DatabaseUnreachable, timedOut(e)
                    ? "the database does not answer within the timeout (" + code + ")"
                    : state == null ? "the database cannot be reached, or no connection of the node's pool was free in time ("
                            + code + ")"
                    : "the database cannot be reached or ended the session (" + code + ")");
        }
        if ("57014".equals(state)) {
            return new DatabaseDiagnosis(NodeProblem.DatabaseTimeout, "the engine's statements run past their timeout (" + code + ")");
        }
        return new DatabaseDiagnosis(NodeProblem.DatabaseError, "the database refuses the engine's statements (" + code + ")");
    }

    /**
     * Connection failures (08), the server shutting down or starting (57P), out of resources
     * (53), a server that takes no writes (25006), and errors without a SQLState (a pool timeout,
     * an I/O error).
     */
    public static boolean unreachable(Throwable e) {
        String state = SqlStates.first(e);
        return state == null || state.startsWith("08") || state.startsWith("57P") || state.startsWith("53")
                || state.equals(READ_ONLY);
    }

    /**
     * Whether a call failed because the server did not answer within the socket timeout (a
     * half-open connection, a frozen or unreachable server), as opposed to the server or the
     * network ending the session (a reset, a termination, a shutdown), which is known at once.
     */
    public static boolean timedOut(Throwable e) {
        return Causes.has(e, SocketTimeoutException.class);
    }

    /**
     * A SQLException, an I/O failure or a timeout somewhere in the chain: the database's answer, or
     * its absence (a pool or a driver that gave up waiting for a connection).
     */
    private static boolean fromTheDatabase(Throwable e) {
        return Causes.has(e, SQLException.class, IOException.class, TimeoutException.class);
    }
}
