package io.drover.executor.store;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.Set;

/**
 * The database must store any Unicode text: job types, payloads and the error messages of
 * failed attempts are Java strings. In a database of another encoding (LATIN1, WIN1252) a
 * character it has no code for is refused (SQLState 22P05): the API answered 400 for a
 * non-Latin payload, and an attempt whose error message held such a character could not be
 * written as a retry, so the job was dead-lettered with attempts left. Checked at start-up, so
 * the node says so once instead.
 *
 * <p>SQL_ASCII stores bytes unchecked, which holds UTF-8 as it is sent: accepted.
 */
public final class DatabaseEncoding {
    static final Set<String> SUITABLE = Set.of("UTF8", "SQL_ASCII");

    private DatabaseEncoding() {
    }

    /** Why the database cannot hold the text Drover stores, or empty. */
    public static Optional<String> problem(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(JobSql.SERVER_ENCODING)) {
            rs.next();
            String encoding = rs.getString(1);
            String database = rs.getString(2);
            if (SUITABLE.contains(encoding)) {
                return Optional.empty();
            }
            return Optional.of("the database " + database + " uses the encoding " + encoding + ", which cannot hold every"
                    + " character of job types, payloads and error messages: Drover needs a UTF8 database (CREATE DATABASE"
                    + " ... ENCODING 'UTF8' TEMPLATE template0)");
        }
    }
}
