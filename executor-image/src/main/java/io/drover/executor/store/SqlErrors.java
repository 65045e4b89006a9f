package io.drover.executor.store;

import io.drover.contract.DatabaseDiagnosis;
import io.drover.contract.SqlStates;

import java.sql.SQLException;
import java.util.Set;

/**
 * What a database failure means, by its SQLState: the database is unreachable, the attempt is
 * worth repeating, or the connection is lost; as opposed to "this statement or row is wrong".
 */
public final class SqlErrors {
    /** A lock wait ran past lock_timeout. */
    public static final String LOCK_NOT_AVAILABLE = "55P03";
    private static final Set<String> ATTEMPT_FAILED = Set.of("40001", "40P01", LOCK_NOT_AVAILABLE, "57014");

    private SqlErrors() {
    }

    /**
     * Failures of this attempt that say nothing about the statement or its rows, so the same
     * statement is to be tried again, never given up: unreachable
     * ({@link DatabaseDiagnosis#unreachable}), a serialization failure or a deadlock (40001,
     * 40P01), a lock not available (55P03), the statement timeout or a cancel (57014: rows locked
     * by a transaction that the server has yet to end, an overloaded database).
     */
    public static boolean worthRetrying(Throwable e) {
        return DatabaseDiagnosis.unreachable(e) || ATTEMPT_FAILED.contains(SqlStates.first(e));
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
                || state.equals("25P03") || state.equals("25P04") || state.equals(DatabaseDiagnosis.READ_ONLY);
    }
}
