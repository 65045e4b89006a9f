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

    /** Commits on success, rolls back on any failure; joins the caller's transaction if one is open. */
    public static <T> T run(Connection c, SqlWork<T> work) throws SQLException {
        if (!c.getAutoCommit()) {
            return work.run();
        }
        c.setAutoCommit(false);
        try {
            T result = work.run();
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }
}
