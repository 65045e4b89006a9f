package io.drover.executor.api;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.Backends;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.PostgresResource;
import io.drover.executor.testing.WithApiToken;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The API on the shared pool when the database fails under it, on a real PostgreSQL: the pool
 * left on a server that takes no writes (as after a failover that brought the old primary back
 * as a replica), and a call the database stops answering midway (its backend frozen with SIGSTOP:
 * bytes taken, nothing answered, as on a half-open connection).
 */
@QuarkusTest
@TestProfile(WithApiToken.class)
@QuarkusTestResource(PostgresResource.class)
class ApiUnderDatabaseFaultsTest {
    @Inject
    AgroalDataSource dataSource;

    private static RequestSpecification api() {
        return WithApiToken.writer();
    }

    private Jobs jobs() {
        return PostgresResource.jobs(dataSource);
    }

    /**
     * Every pooled connection takes only reads; a new one reaches a server that takes writes.
     * Before, the shared pool kept such connections (Agroal's PostgreSQL sorter discards on 08
     * only) and every enqueue was answered 503 until their 30-minute lifetime ran out. Now the
     * first refusal has the pool drop them all: at most a call or two fail, each 503 naming the
     * cause, and then enqueues are written.
     */
    @Test
    void afterAFailoverLeftThePoolOnAServerThatTakesNoWritesEnqueuesAreWrittenAgainAtOnce() throws Exception {
        int size = dataSource.getConfiguration().connectionPoolConfiguration().maxSize();
        try {
            setReadOnly(size, true);
            List<Integer> refused = new ArrayList<>();
            long id = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (id == 0 && System.nanoTime() < deadline) {
                Response r = api().body("{\"type\":\"noop\"}").post("/api/v1/jobs");
                if (r.statusCode() == 201) {
                    id = r.jsonPath().getLong("id");
                } else {
                    assertThat(r.statusCode()).isEqualTo(503);
                    assertThat(r.jsonPath().getString("message"))
                            .isEqualTo("the database is unavailable (DatabaseReadOnly); try again later");
                    refused.add(r.statusCode());
                    Thread.sleep(100);
                }
            }
            assertThat(id).as("an enqueue written within 15 s; refused %d times", refused.size()).isPositive();
            assertThat(refused).as("the pool dropped its read-only connections at the first refusal").hasSizeLessThan(5);
            long written = id;
            Jobs.await("the job ran", Duration.ofSeconds(30),
                    () -> jobs().count("select count(*) from {s}.job where id = " + written) == 0);
            assertThat(readOnlyConnections(size)).as("no pooled connection takes only reads").isZero();
        } finally {
            setReadOnly(size, false);
        }
    }

    /**
     * A dead-letter retry waits on a row lock; its backend is frozen, and the lock let go: the
     * call is sent and never answered. It is answered 503 after the API's bound (30 s), not after
     * the shared pool's socket timeout (5 minutes), and the pool serves the next calls.
     */
    @Test
    void aCallTheDatabaseStopsAnsweringIsAnswered503AfterTheApisBoundNotThePools() throws Exception {
        long id = jobs().count("select coalesce(max(id), 0) from {s}.dead_letter") + 3_000_000_000L;
        jobs().execute("insert into {s}.dead_letter (id, type, payload, attempts, max_attempts, error, due_at, created_at)"
                + " values (" + id + ", 'nobody-handles-" + id + "', null, 3, 3, 'failed', now(), now())");
        long frozen;
        CompletableFuture<HttpResponse<String>> call;
        long sent;
        try (Connection holder = dataSource.getConnection(); Statement s = holder.createStatement()) {
            holder.setAutoCommit(false);
            long me = Backends.pid(holder);
            s.execute("select id from quarkus_test.dead_letter where id = " + id + " for update");
            sent = System.nanoTime();
            call = HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(URI.create(RestAssured.baseURI + ":"
                            + RestAssured.port + "/api/v1/dead-letters/" + id + "/retry"))
                    .header("Authorization", "Bearer " + WithApiToken.TOKEN).timeout(Duration.ofMinutes(2))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            frozen = blockedBy(s, me);
            Backends.signal("STOP", frozen);
            holder.rollback(); // the row is the frozen backend's now; it never answers
        }
        try {
            HttpResponse<String> r = call.get(150, TimeUnit.SECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - sent);
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("\"the database is unavailable (DatabaseUnreachable); try again later\"");
            assertThat(took).as("answered after the API's bound (30 s), not the pool's 5 minutes")
                    .isLessThan(Duration.ofSeconds(60));
        } finally {
            Backends.terminate(dataSource, frozen, false);
            Backends.signal("CONT", frozen);
        }
        api().get("/api/v1/stats").then().statusCode(200);
        jobs().execute("delete from {s}.dead_letter where id = " + id);
        jobs().execute("delete from {s}.job where id = " + id);
    }

    /** The backend waiting for a lock that {@code holder} holds (the API's call), once it waits. */
    private static long blockedBy(Statement s, long holder) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            try (ResultSet rs = s.executeQuery("select pid from pg_stat_activity where " + holder
                    + " = any(pg_blocking_pids(pid))")) {
                if (rs.next()) {
                    return rs.getLong(1);
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the API's call never waited for the row");
    }

    /** Sets every connection the pool holds (it opens them up to its size) to take only reads, or writes again. */
    private void setReadOnly(int size, boolean readOnly) throws Exception {
        List<Connection> all = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                Connection c = dataSource.getConnection();
                all.add(c);
                try (Statement s = c.createStatement()) {
                    s.execute("set session characteristics as transaction " + (readOnly ? "read only" : "read write"));
                }
            }
        } finally {
            for (Connection c : all) {
                c.close();
            }
        }
    }

    private long readOnlyConnections(int size) throws Exception {
        List<Connection> all = new ArrayList<>();
        long readOnly = 0;
        try {
            for (int i = 0; i < size; i++) {
                Connection c = dataSource.getConnection();
                all.add(c);
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("show transaction_read_only")) {
                    rs.next();
                    readOnly += "on".equals(rs.getString(1)) ? 1 : 0;
                }
            }
        } finally {
            for (Connection c : all) {
                c.close();
            }
        }
        return readOnly;
    }
}
