package io.drover.bench.core;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The database's write-ahead log position. WAL bytes per job is what a design costs the
 * database in writes, independent of how busy the shared cores were: it explains a
 * throughput gap where timings only show it.
 */
public final class Wal {
    private Wal() {
    }

    public static String position(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select pg_current_wal_lsn()::text")) {
            rs.next();
            return rs.getString(1);
        }
    }

    public static double bytesSince(DataSource ds, String start) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select pg_wal_lsn_diff(pg_current_wal_lsn(), '" + start + "'::pg_lsn)")) {
            rs.next();
            return rs.getDouble(1);
        }
    }
}
