package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** A real PostgreSQL with a UTF8 database (the test server's) and a LATIN1 one beside it. */
class DatabaseEncodingTest {

    @Test
    void aDatabaseThatCannotHoldUnicodeIsNamedWithItsEncoding() throws Exception {
        assertThat(DatabaseEncoding.problem(TestDatabase.sharedPool())).isEmpty();

        try (Connection admin = DriverManager.getConnection(TestDatabase.jdbcUrl(), "postgres", "postgres");
             Statement s = admin.createStatement()) {
            s.execute("drop database if exists latin_jobs");
            s.execute("create database latin_jobs encoding 'LATIN1' lc_collate 'C' lc_ctype 'C' template template0");
        }
        String url = TestDatabase.server().getJdbcUrl("postgres", "latin_jobs");
        try (AgroalDataSource latin = PooledDataSource.create(url, "postgres", "postgres", 1)) {
            assertThat(DatabaseEncoding.problem(latin)).hasValueSatisfying(p -> assertThat(p)
                    .startsWith("the database latin_jobs uses the encoding LATIN1").contains("needs a UTF8 database"));
            // What it would do otherwise: refuse a character it has no code for.
            try (Connection c = latin.getConnection(); Statement s = c.createStatement()) {
                s.execute("create temporary table t (x text)");
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.execute("insert into t values ('日本')"))
                        .hasMessageContaining("has no equivalent in encoding");
            }
        }
    }
}
