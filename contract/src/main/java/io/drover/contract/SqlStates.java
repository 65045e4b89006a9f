package io.drover.contract;

import java.sql.SQLException;

/**
 * The SQLState of a failure, which both engines' diagnoses go by: the driver's message can name
 * hosts and roles and is left to the log, while the five-character state is safe to show in
 * readiness and status.
 */
public final class SqlStates {
    private SqlStates() {
    }

    /** The state of the first SQLException in the cause chain that has one, or null. */
    public static String first(Throwable failure) {
        for (Throwable t : Causes.chain(failure)) {
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
