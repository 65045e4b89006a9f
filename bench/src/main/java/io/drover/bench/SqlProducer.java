package io.drover.bench;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;

/** Producers writing jobs straight to the database, as an application would, on a connection of their own. */
final class SqlProducer {
    private SqlProducer() {
    }

    /**
     * The executor's own insert ({@code JobSql.insertJob}, ids returned as the API gets them):
     * one row per transaction in autocommit, or a JDBC batch of {@code batch} rows in one
     * transaction, as the API writes a batch.
     */
    static EnqueueBench.Producer insert(Connection c, String sql, int batch, Instant due) throws SQLException {
        c.setAutoCommit(batch == 1);
        PreparedStatement ps = c.prepareStatement(sql, new String[] {"id"});
        ps.setString(1, "noop");
        ps.setString(2, null);
        ps.setTimestamp(3, Timestamp.from(due));
        ps.setInt(4, 3);
        ps.setNull(5, java.sql.Types.BIGINT);
        return new EnqueueBench.Producer() {
            @Override
            public int send() throws SQLException {
                if (batch == 1) {
                    ps.executeUpdate();
                    return 1;
                }
                for (int i = 0; i < batch; i++) {
                    ps.addBatch();
                }
                ps.executeBatch();
                c.commit();
                return batch;
            }

            @Override
            public void close() throws SQLException {
                c.close();
            }
        };
    }

    /** COPY FROM STDIN of {@code rows} rows per transaction: the cheapest way in, the floor of the others. */
    static EnqueueBench.Producer copy(Connection c, String schema, int rows, Instant due) throws SQLException {
        c.setAutoCommit(true);
        CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
        String line = "noop\t\\N\t3\t" + due + "\n";
        String text = line.repeat(rows);
        String sql = "copy " + schema + ".job (type, payload, max_attempts, due_at) from stdin";
        return new EnqueueBench.Producer() {
            @Override
            public int send() throws Exception {
                return (int) copy.copyIn(sql, new StringReader(text));
            }

            @Override
            public void close() throws SQLException {
                c.close();
            }
        };
    }
}
