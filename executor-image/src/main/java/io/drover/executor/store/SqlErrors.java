package io.drover.executor.store;

import java.sql.SQLException;

/** Which failures mean "the database is unreachable", as opposed to "this statement or row is wrong". */
public final class SqlErrors {
    private SqlErrors() {
    }

    /**
     * Connection failures (08), the server shutting down or starting (57P), out of resources
     * (53), and errors without a SQLState (a pool timeout, an I/O error).
     */
    public static boolean unreachable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                String state = s.getSQLState();
                return state.startsWith("08") || state.startsWith("57P") || state.startsWith("53");
            }
        }
        return true;
    }

    /**
     * Failures of this attempt that say nothing about the statement or its rows, so the same
     * statement is to be tried again, never given up: unreachable (above), a serialization
     * failure or a deadlock (40001, 40P01), a lock not available (55P03), the statement timeout or
     * a cancel (57014: rows locked by a transaction that the server has yet to end, an overloaded
     * database).
     */
    public static boolean worthRetrying(Throwable e) {
        if (unreachable(e)) {
            return true;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                String state = s.getSQLState();
                return state.equals("40001") || state.equals("40P01") || state.equals("55P03") || state.equals("57014");
            }
        }
        return false;
    }
}
