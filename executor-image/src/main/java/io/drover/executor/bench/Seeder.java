package io.drover.executor.bench;

import io.drover.bench.core.Vacuum;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.Reader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Writes N jobs with one COPY in one transaction, so they become visible to the executors all
 * at once: the drain clock starts at commit. Returns the id range, so the drain is counted on
 * exactly these jobs even in a database that holds others.
 */
public final class Seeder {
    private Seeder() {
    }

    /** The ids of the seeded jobs: (afterId, lastId]. */
    public record Seeded(long afterId, long lastId, Instant committedAt) {
        long count() {
            return lastId - afterId;
        }
    }

    /**
     * Vacuums the job table before a seed ({@link Vacuum}), so that, like the SQL floor's fresh
     * table, it holds no dead rows of earlier drains: a fleet's table is reused from run to run,
     * and in the in-cluster matrix 1.9 million dead row versions left by earlier drains cut one
     * configuration to less than half its rate (its candidate reads walked them until autovacuum
     * came by).
     *
     * @return what the VACUUM could not do (the role does not own the table; an older snapshot
     *         keeps dead rows), or null; the drain then runs on the table as it is
     */
    public static String vacuum(DataSource dataSource, String schema) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return Vacuum.tables(c, List.of(schema + ".job"));
        }
    }

    public static Seeded seed(DataSource dataSource, String schema, JobKind kind, int count)
            throws SQLException, IOException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            Instant dbNow;
            long afterId;
            try (Statement s = c.createStatement()) {
                // Serialise with other seeders so the id range holds only our rows.
                s.execute("lock table " + schema + ".job in share row exclusive mode");
                long maxId;
                try (ResultSet rs = s.executeQuery("select coalesce(max(id), 0), now() from " + schema + ".job")) {
                    rs.next();
                    maxId = rs.getLong(1);
                    dbNow = rs.getTimestamp(2).toInstant();
                }
                afterId = Math.max(maxId, sequenceValue(s, schema));
            }
            CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
            // Jobs take the column default (now()) for due_at; only timers name it.
            String columns = kind.isTimer() ? "(type, payload, max_attempts, due_at)" : "(type, payload, max_attempts)";
            copy.copyIn("copy " + schema + ".job " + columns + " from stdin", new Rows(kind, count, dbNow));
            long lastId;
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("select max(id) from " + schema + ".job")) {
                rs.next();
                lastId = rs.getLong(1);
            }
            c.commit();
            return new Seeded(afterId, lastId, Instant.now());
        }
    }

    private static long sequenceValue(Statement s, String schema) throws SQLException {
        try (ResultSet rs = s.executeQuery("select case when is_called then last_value else last_value - 1 end"
                + " from " + schema + ".job_id_seq")) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    /** Generates the COPY text rows lazily: 1M jobs never sit in memory as one string. */
    private static final class Rows extends Reader {
        private final JobKind kind;
        private final int count;
        private final Instant base;
        private int row;
        private String pending = "";
        private int pos;

        Rows(JobKind kind, int count, Instant base) {
            this.kind = kind;
            this.count = count;
            this.base = base;
        }

        @Override
        public int read(char[] buf, int off, int len) {
            int written = 0;
            while (written < len) {
                if (pos == pending.length()) {
                    if (row == count) {
                        return written == 0 ? -1 : written;
                    }
                    pending = line(row++);
                    pos = 0;
                }
                int n = Math.min(len - written, pending.length() - pos);
                pending.getChars(pos, pos + n, buf, off + written);
                pos += n;
                written += n;
            }
            return written;
        }

        private String line(int i) {
            String payload = kind.payload() == null ? "\\N" : kind.payload();
            String line = kind.type() + "\t" + payload + "\t3";
            if (kind.isTimer()) {
                long offsetNanos = kind.timerWindow().isZero() ? 0 : kind.timerWindow().toNanos() / count * i;
                line += "\t" + DateTimeFormatter.ISO_INSTANT.format(base.plusNanos(offsetNanos));
            }
            return line + "\n";
        }

        @Override
        public void close() {
        }
    }
}
