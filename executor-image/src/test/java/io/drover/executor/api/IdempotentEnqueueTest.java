package io.drover.executor.api;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.PostgresResource;
import io.drover.executor.testing.WithApiToken;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

/**
 * Enqueue calls with an Idempotency-Key, against the running service and a real PostgreSQL: a
 * producer that lost the answer to a call that committed calls again, and must get the jobs it
 * already has, not a second set. Jobs here are timers an hour ahead of a type no node handles,
 * so they stay in the table to be counted.
 */
@QuarkusTest
@TestProfile(WithApiToken.class)
@QuarkusTestResource(PostgresResource.class)
class IdempotentEnqueueTest {
    private static final String LATER = Instant.now().plus(1, ChronoUnit.HOURS).toString();

    @Inject
    AgroalDataSource dataSource;

    private static RequestSpecification api(String key) {
        return WithApiToken.writer().header("Idempotency-Key", key);
    }

    private long jobsOfType(String type) {
        return PostgresResource.jobs(dataSource).count("select count(*) from {s}.job where type = '" + type + "'");
    }

    private static String job(String type, int payload) {
        return "{\"type\":\"" + type + "\",\"payload\":" + payload + ",\"dueAt\":\"" + LATER + "\"}";
    }

    @Test
    void theOpenApiDocumentDeclaresTheHeaderTheReplayAndTheRefusal() {
        for (String path : List.of("'/api/v1/jobs'", "'/api/v1/jobs/batch'")) {
            String post = "paths." + path + ".post.";
            given().accept(ContentType.JSON).get("/q/openapi?format=json").then().statusCode(200)
                    .body(post + "parameters.find { it.name == 'Idempotency-Key' }.in", equalTo("header"))
                    .body(post + "responses.'201'.headers.'Idempotent-Replayed'.schema.type", equalTo("boolean"))
                    .body(post + "responses.'422'.description", containsString("Idempotency-Key"))
                    .body(post + "responses.'409'.description", containsString("in progress"));
        }
    }

    @Test
    void aCallRepeatedWithItsKeyEnqueuesOnceAndAnswersTheSameIds() {
        String type = "idem-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        long id = api(key).body(job(type, 1)).post("/api/v1/jobs").then().statusCode(201)
                .header("Idempotent-Replayed", nullValue()).extract().jsonPath().getLong("id");
        api(key).body(job(type, 1)).post("/api/v1/jobs").then().statusCode(201)
                .header("Idempotent-Replayed", "true").header("Location", org.hamcrest.Matchers.endsWith("/api/v1/jobs/" + id))
                .body("id", equalTo((int) id));
        assertThat(jobsOfType(type)).isEqualTo(1);

        String batch = "{\"jobs\":[" + job(type, 2) + "," + job(type, 3) + "]}";
        String batchKey = UUID.randomUUID().toString();
        List<Long> ids = api(batchKey).body(batch).post("/api/v1/jobs/batch").then().statusCode(201)
                .extract().jsonPath().getList("ids", Long.class);
        assertThat(api(batchKey).body(batch).post("/api/v1/jobs/batch").then().statusCode(201)
                .header("Idempotent-Replayed", "true").extract().jsonPath().getList("ids", Long.class)).isEqualTo(ids);
        assertThat(jobsOfType(type)).isEqualTo(3);
    }

    @Test
    void aKeyReusedForAnotherRequestIsRefusedNamingTheHeaderAndWritesNothing() {
        String type = "idem-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        api(key).body(job(type, 1)).post("/api/v1/jobs").then().statusCode(201);
        api(key).body(job(type, 2)).post("/api/v1/jobs").then().statusCode(422)
                .body("errors[0].field", equalTo("Idempotency-Key"))
                .body("errors[0].message", equalTo("was first used for a different request (another body, or the other"
                        + " enqueue call) within the last day; use a new key for a new request"));
        api(key).body("{\"jobs\":[" + job(type, 1) + "]}").post("/api/v1/jobs/batch").then().statusCode(422)
                .body("errors[0].field", equalTo("Idempotency-Key"));
        assertThat(jobsOfType(type)).isEqualTo(1);
    }

    @Test
    void aKeyThatIsNotOneIsRefusedNamingTheHeader() {
        for (String bad : List.of("two words", "x".repeat(256), "caf\u00e9")) {
            api(bad).body(job("idem-bad", 1)).post("/api/v1/jobs").then().statusCode(400)
                    .body("errors[0].field", equalTo("Idempotency-Key"))
                    .body("errors[0].message", equalTo("must be 1 to 255 visible ASCII characters (no spaces), e.g. a UUID"));
        }
        assertThat(jobsOfType("idem-bad")).isZero();
    }

    @Test
    void concurrentCallsWithOneKeyEnqueueOnce() throws Exception {
        String type = "idem-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            Callable<Response> call = () -> api(key).body(job(type, 1)).post("/api/v1/jobs");
            List<Future<Response>> answers = pool.invokeAll(java.util.Collections.nCopies(8, call));
            List<Long> ids = new java.util.ArrayList<>();
            for (Future<Response> answer : answers) {
                assertThat(answer.get().statusCode()).isEqualTo(201);
                ids.add(answer.get().jsonPath().getLong("id"));
            }
            assertThat(ids).containsOnly(ids.get(0));
        } finally {
            pool.shutdownNow();
        }
        assertThat(jobsOfType(type)).isEqualTo(1);
    }

    /**
     * A retry that overtakes its first call while that call is still writing (here: a transaction
     * that claimed the key and hangs) waits a bounded time, then is answered 409 with Retry-After,
     * naming the header; it held a pool connection for as long as the other hung before.
     */
    @Test
    void aCallWhoseKeyAnotherCallStillHoldsIsAnsweredConflictAndMayRetry() throws Exception {
        String type = "idem-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        try (java.sql.Connection hung = dataSource.getConnection()) {
            hung.setAutoCommit(false);
            try (var claim = hung.prepareStatement("insert into quarkus_test.enqueue_key (key, request, ids)"
                    + " values (?, '\\x00', '{}')")) {
                claim.setString(1, key);
                claim.executeUpdate();
            }
            long started = System.nanoTime();
            api(key).body(job(type, 1)).post("/api/v1/jobs").then().statusCode(409)
                    .header("Retry-After", "1")
                    .body("errors[0].field", equalTo("Idempotency-Key"))
                    .body("errors[0].message", containsString("still in progress"));
            assertThat(java.time.Duration.ofNanos(System.nanoTime() - started)).isLessThan(java.time.Duration.ofSeconds(30));
            assertThat(jobsOfType(type)).isZero();
            hung.rollback();
        }
        api(key).body(job(type, 1)).post("/api/v1/jobs").then().statusCode(201).header("Idempotent-Replayed", nullValue());
        assertThat(jobsOfType(type)).isEqualTo(1);
    }

    @Test
    void aKeyOlderThanADayIsANewKey() {
        String type = "idem-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        long first = api(key).body(job(type, 1)).post("/api/v1/jobs").then().statusCode(201).extract().jsonPath().getLong("id");
        PostgresResource.jobs(dataSource).execute("update {s}.enqueue_key set created_at = now() - interval '25 hours'"
                + " where key = '" + key + "'");
        long second = api(key).body(job(type, 2)).post("/api/v1/jobs").then().statusCode(201)
                .header("Idempotent-Replayed", nullValue()).extract().jsonPath().getLong("id");
        assertThat(second).isNotEqualTo(first);
        assertThat(jobsOfType(type)).isEqualTo(2);
        // Expired keys are removed by later keyed calls.
        PostgresResource.jobs(dataSource).execute("update {s}.enqueue_key set created_at = now() - interval '25 hours'"
                + " where key = '" + key + "'");
        api(UUID.randomUUID().toString()).body(job(type, 3)).post("/api/v1/jobs").then().statusCode(201);
        assertThat(PostgresResource.jobs(dataSource).count("select count(*) from {s}.enqueue_key where key = '"
                + key + "'")).isZero();
    }
}
