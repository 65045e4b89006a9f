package io.drover.executor.store;

import io.drover.contract.Causes;
import io.drover.contract.NodeProblem;
import io.drover.contract.SqlStates;

import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.util.Set;

/**
 * What a database failure means, by its SQLState: the database is unreachable, the attempt is
 * worth repeating, or the connection is lost; as opposed to "this statement or row is wrong".
 */
public final class SqlErrors {
    private static final Set<String> ATTEMPT_FAILED = Set.of("40001", "40P01", "55P03", "57014");
    /**
     * A write refused by a server that takes only reads: the connection reached a replica, as one
     * opened before a failover does when the old primary comes back as a reader (Aurora), or when
     * stale DNS still names it. Not this statement's fault: the database is unreachable for writes
     * on this connection, and a new one may reach the new primary.
     */
    private static final String READ_ONLY = "25006";

    private SqlErrors() {
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
     * Failures of this attempt that say nothing about the statement or its rows, so the same
     * statement is to be tried again, never given up: unreachable (above), a serialization
     * failure or a deadlock (40001, 40P01), a lock not available (55P03), the statement timeout or
     * a cancel (57014: rows locked by a transaction that the server has yet to end, an overloaded
     * database).
     */
    public static boolean worthRetrying(Throwable e) {
        return unreachable(e) || ATTEMPT_FAILED.contains(SqlStates.first(e));
    }

    /**
     * Failures that are a row's own, whatever the node or the moment: a value the statement
     * cannot take (22, data exception: a counter out of range), a constraint (23), a trigger or
     * routine that refuses it (09, 27, 2F, 38, 39, P0: a user's trigger raising). Writing the same
     * row again fails again; other rows are not concerned. Not the node's trouble (42: a revoked
     * permission, a missing table; 58 and XX: the server's own failure), which no row is to blame for.
     */
    public static boolean rowRefused(Throwable e) {
        String state = SqlStates.first(e);
        return state != null && ROW_CLASSES.contains(state.substring(0, 2));
    }

    private static final Set<String> ROW_CLASSES = Set.of("22", "23", "09", "27", "2F", "38", "39", "P0");

    /**
     * Whether a failure leaves its connection unusable, for the pool to discard it: connection
     * errors (08: the I/O error of a socket timeout or a reset among them), the server ending the
     * session (57P01-57P03 as it shuts down, terminates the backend or restarts; 25P03 and 25P04
     * when an idle or a long transaction outlived its timeout), a session on a server that takes
     * no writes (25006: a replica; a new connection may reach the primary), or no SQLState at all
     * (an I/O failure the driver did not classify). Statement errors (a refused row, a timeout the
     * server cancelled: 57014) and out of resources (53) leave it usable.
     */
    public static boolean connectionLost(SQLException e) {
        String state = e.getSQLState();
        return state == null || state.startsWith("08") || state.startsWith("57P")
                || state.equals("25P03") || state.equals("25P04") || state.equals(READ_ONLY);
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
     * What a failure of the engine's statements says about the database, for a node's status: a
     * problem (its word is the ExecutorCluster's condition reason; a node that cannot start uses
     * the same words, {@code DatabaseStartup}) and a sentence with the SQLState. Never the
     * driver's text: it can name users, tables and hosts, and the status is read outside the API's
     * tokens.
     */
    public record Diagnosis(NodeProblem problem, String message) {
        /** The problem's word. */
        public String reason() {
            return problem.name();
        }

        /** "Reason: message", the form of a node's termination message. */
        @Override
        public String toString() {
            return reason() + ": " + message;
        }
    }

    public static Diagnosis diagnose(Throwable e) {
        if (!fromTheDatabase(e)) {
            return new Diagnosis(NodeProblem.ExecutorError, "the engine fails with " + e.getClass().getSimpleName()
                    + ", not a database error; the node's log has the detail");
        }
        String state = SqlStates.first(e);
        String code = SqlStates.describe(e);
        if (READ_ONLY.equals(state)) {
            return new Diagnosis(NodeProblem.DatabaseReadOnly, "the database takes only reads (" + code + "): database.host"
                    + " must name the primary (on Aurora or RDS, the writer endpoint), and neither the role nor the"
                    + " database may default to read-only transactions");
        }
        if (state != null && state.startsWith("28")) {
            return new Diagnosis(NodeProblem.DatabaseAuthenticationFailed, "the database refuses the credentials (" + code + ")");
        }
        if ("3D000".equals(state)) {
            return new Diagnosis(NodeProblem.DatabaseNotFound, "the database does not exist (" + code + ")");
        }
        if ("42501".equals(state)) {
            return new Diagnosis(NodeProblem.DatabasePermissionDenied, "the role may not read or write the job tables (" + code + ")");
        }
        if (state != null && state.startsWith("53")) {
            return new Diagnosis(NodeProblem.DatabaseOutOfResources, "the database is out of connections, memory or disk (" + code + ")");
        }
        if (unreachable(e)) {
            return new Diagnosis(NodeProblem.DatabaseUnreachable, timedOut(e)
                    ? "the database does not answer within the timeout (" + code + ")"
                    : state == null ? "the database cannot be reached, or no connection of the node's pool was free in time ("
                            + code + ")"
                    : "the database cannot be reached or ended the session (" + code + ")");
        }
        if ("57014".equals(state)) {
            return new Diagnosis(NodeProblem.DatabaseTimeout, "the engine's statements run past their timeout (" + code + ")");
        }
        return new Diagnosis(NodeProblem.DatabaseError, "the database refuses the engine's statements (" + code + ")");
    }

    /**
     * A SQLException, an I/O failure or a timeout somewhere in the chain: the database's answer, or
     * its absence (a pool or a driver that gave up waiting for a connection).
     */
    private static boolean fromTheDatabase(Throwable e) {
        return Causes.has(e, SQLException.class, java.io.IOException.class, java.util.concurrent.TimeoutException.class);
    }
}
