package io.drover.bench.core;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Counts the transactions that wrote, by the server's transaction-id counter: a transaction
 * gets an id when it first writes or locks a row, so the counter's advance is the number of
 * commits that each cost a WAL flush, whoever sent them. Read-only transactions (the drain's
 * own polling) take no id and flush nothing, so they are not counted. pg_stat_database's
 * xact_commit would count them too, and it lags: since PostgreSQL 15 a backend publishes its
 * counts at most once a second, and an idle one up to 10 s later, too late for a drain of a
 * few seconds.
 */
public final class Commits {
    private Commits() {
    }

    /** The next transaction id the server will assign; reading it assigns none. */
    public static long next(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select pg_snapshot_xmax(pg_current_snapshot())::text::bigint")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
