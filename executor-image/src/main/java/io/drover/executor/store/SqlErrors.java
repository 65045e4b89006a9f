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
}
