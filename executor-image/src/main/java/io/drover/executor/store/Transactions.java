package io.drover.executor.store;

import java.sql.Connection;
import java.sql.SQLException;

/** Runs JDBC work in one transaction on a connection and leaves the connection as it found it. */
public final class Transactions {
    private Transactions() {
    }

    /** A unit of JDBC work. */
    @FunctionalInterface
    public interface SqlWork<T> {
        T run() throws SQLException;
    }

    /**
     * Commits on success, rolls back on any failure (an Error too: restoring auto-commit on an
     * open transaction would commit it); joins the caller's transaction if one is open. The
     * failure is what the caller sees: when the connection is gone, the rollback's and the
     * restore's own failures ("the connection has been closed") are only suppressed beside it.
     */
    public static <T> T run(Connection c, SqlWork<T> work) throws SQLException {
        if (!c.getAutoCommit()) {
            return work.run();
        }
        c.setAutoCommit(false);
        T result;
        try {
            result = work.run();
            c.commit();
        } catch (Throwable e) {
            try {
                c.rollback();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            try {
                c.setAutoCommit(true);
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        c.setAutoCommit(true);
        return result;
    }
}
