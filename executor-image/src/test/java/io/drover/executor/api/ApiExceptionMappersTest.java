package io.drover.executor.api;

import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/** Error bodies never carry the driver's text (users, hosts, schema): it stays in the log. */
class ApiExceptionMappersTest {
    private final ApiExceptionMappers mappers = new ApiExceptionMappers();

    @Test
    void aDatabaseFailureIsA503NamingOnlyTheCause() {
        Response r = mappers.database(new SQLException("FATAL: password authentication failed for user \"drover\"", "28P01"));
        assertThat(r.getStatus()).isEqualTo(503);
        assertThat(message(r)).isEqualTo("the database is unavailable (DatabaseAuthenticationFailed); try again later");
        assertThat(r.getHeaderString("Retry-After")).as("a client backs off by it").isEqualTo("5");
        assertThat(message(mappers.database(new SQLException("ERROR: cannot execute INSERT in a read-only transaction", "25006"))))
                .isEqualTo("the database is unavailable (DatabaseReadOnly); try again later");
        assertThat(message(mappers.database(new SQLException("An I/O error occurred while sending to the backend.", "08006"))))
                .isEqualTo("the database is unavailable (DatabaseUnreachable); try again later");
    }

    @Test
    void aValueTheDatabaseRefusesIsA400NamingOnlyTheSqlState() {
        Response r = mappers.database(new SQLException("ERROR: value too long for type character varying(200) in table drover.job", "22001"));
        assertThat(r.getStatus()).isEqualTo(400);
        assertThat(message(r)).isEqualTo("invalid request: a value the database cannot store (SQLState 22001)");
        assertThat(mappers.database(new SQLException("ERROR: duplicate key value violates unique constraint \"job_pkey\"", "23505"))
                .getStatus()).isEqualTo(400);
    }

    @Test
    void anUnexpectedFailureIsAGeneric500WithAnIdForTheLog() {
        Response r = mappers.unexpected(new IllegalStateException("connection to db-internal.corp:5432 as admin"));
        assertThat(r.getStatus()).isEqualTo(500);
        assertThat(message(r)).matches("internal error [0-9a-f]{8}: see the executor's log");
    }

    private static String message(Response r) {
        return ((ApiError) r.getEntity()).message();
    }
}
