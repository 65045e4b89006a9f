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
            abandon(c, e);
            throw e;
        }
        c.setAutoCommit(true);
        return result;
    }

    /**
     * After {@code failure} in a transaction the caller opened with {@code setAutoCommit(false)}:
     * rolls it back, then restores auto-commit (restoring it first would commit the transaction).
     * On a broken connection their own failures are suppressed beside {@code failure}, the one
     * the caller throws.
     */
    public static void abandon(Connection c, Throwable failure) {
        try {
            c.rollback();
        } catch (SQLException suppressed) {
            failure.addSuppressed(suppressed);
        }
        try {
            c.setAutoCommit(true);
        } catch (SQLException suppressed) {
            failure.addSuppressed(suppressed);
        }
    }
}
