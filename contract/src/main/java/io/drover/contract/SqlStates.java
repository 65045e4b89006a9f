package io.drover.contract;

import java.sql.SQLException;

/**
 * The SQLState of a failure, which both engines' diagnoses go by: the driver's message can name
 * hosts and roles and is left to the log, while the five-character state is safe to show in
 * readiness and status.
 */
public final class SqlStates {
    /** Deeper than any real chain (driver, pool, transaction wrappers); ends a cyclic one. */
    private static final int MAX_DEPTH = 32;

    private SqlStates() {
    }

    /** The state of the first SQLException in the cause chain that has one, or null. */
    public static String first(Throwable failure) {
        Throwable t = failure;
        for (int depth = 0; t != null && depth < MAX_DEPTH; depth++, t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                return s.getSQLState();
            }
        }
        return null;
    }

    /** "SQLState 08001" for the first state in the chain, or "no SQLState": how both engines name it. */
    public static String describe(Throwable failure) {
        String state = first(failure);
        return state == null ? "no SQLState" : "SQLState " + state;
    }
}
