package io.drover.executor.api;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.PostgresResource;
import io.drover.executor.testing.WithApiToken;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.notNullValue;

/** The HTTP API against the running service and a real PostgreSQL. */
@QuarkusTest
@TestProfile(WithApiToken.class)
@QuarkusTestResource(PostgresResource.class)
class JobApiTest {
    @Inject
    AgroalDataSource dataSource;

    private static RequestSpecification api() {
        return WithApiToken.writer();
    }

    private Jobs jobs() {
        return PostgresResource.jobs(dataSource);
    }

    @Test
    void enqueuesOneJobThatRunsAndCanBeLookedUp() throws Exception {
        long id = api().body("{\"type\":\"sleep\",\"payload\":1500}").post("/api/v1/jobs")
                .then().statusCode(201).header("Location", containsString("/api/v1/jobs/"))
                .extract().jsonPath().getLong("id");
        api().get("/api/v1/jobs/" + id).then().statusCode(200)
                .body("type", equalTo("sleep")).body("payload", equalTo("1500")).body("maxAttempts", equalTo(3));
        Jobs.await("job done", Duration.ofSeconds(30), () -> jobs().count("select count(*) from {s}.job where id = " + id) == 0);
        api().get("/api/v1/jobs/" + id).then().statusCode(404).body("message", containsString("no job"));
    }

    @Test
    void enqueuesABatchOfThousandsInOneCall() throws Exception {
        String body = IntStream.range(0, 3000).mapToObj(i -> "{\"type\":\"noop\"}")
                .collect(Collectors.joining(",", "{\"jobs\":[", "]}"));
        List<Long> ids = api().body(body).post("/api/v1/jobs/batch").then().statusCode(201)
                .body("count", equalTo(3000)).extract().jsonPath().getList("ids", Long.class);
        assertThat(ids).hasSize(3000).doesNotHaveDuplicates();
        Jobs.await("batch executed", Duration.ofSeconds(60), () -> jobs().count(
                "select count(*) from {s}.job where id between " + ids.get(0) + " and " + ids.get(2999)) == 0);
    }

    @Test
    void invalidInputIsRejectedNamingTheFieldAndNothingIsWritten() {
        long before = jobs().count("select count(*) from {s}.job");
        api().body("{\"payload\":\"x\"}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors.field", hasItem("type")).body("message", containsString("type is required"));
        api().body("{\"type\":\"noop\",\"maxAttempts\":0}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("maxAttempts"));
        // A field that is not one: named, with the fields there are (a batch's reader named none: 500).
        api().body("{\"type\":\"noop\",\"priority\":1}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("priority")).body("errors[0].message", containsString("the fields are"));
        api().body("{\"job\":[{\"type\":\"noop\"}]}").post("/api/v1/jobs/batch").then().statusCode(400)
                .body("errors[0].field", equalTo("job")).body("errors[0].message", equalTo("is not a field here; the fields are jobs"));
        api().body("{\"jobs\":[{\"type\":\"noop\",\"priority\":1}]}").post("/api/v1/jobs/batch").then().statusCode(400)
                .body("errors[0].field", equalTo("jobs[0].priority"));
        api().body("{\"type\":\"noop\",\"dueAt\":\"tomorrow\"}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("dueAt"));
        api().body("{\"type\":\"noop\",\"repeatEvery\":\"0s\"}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("repeatEvery"));
        // Past 100 years by half a second: the engine, which checks the exact interval, dead-lettered it unrun.
        api().body("{\"type\":\"noop\",\"repeatEvery\":\"P36500DT0.5S\"}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("repeatEvery"))
                .body("errors[0].message", equalTo("must be between 1s and 100 years, got 3153600000.5s"));
        // The API's words, never Jackson's (they name Java classes and the parser's internals).
        api().body("{\"type\":\"noop\",\"maxAttempt\":2}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("maxAttempt")).body("message", equalTo("invalid JSON: maxAttempt: is not a"
                        + " field here; the fields are dueAt, maxAttempts, payload, repeatEvery, type"));
        api().body("{\"type\":\"noop\",\"maxAttempts\":\"many\"}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("maxAttempts"))
                .body("message", equalTo("invalid JSON: maxAttempts: must be a whole number"));
        // Each field its own kind of value: no string for a number, no number for a string (Jackson coerced them).
        for (String body : List.of("{\"type\":\"noop\",\"maxAttempts\":\"5\"}", "{\"type\":\"noop\",\"maxAttempts\":\"\"}",
                "{\"type\":\"noop\",\"maxAttempts\":\"null\"}", "{\"type\":\"noop\",\"maxAttempts\":true}")) {
            api().body(body).post("/api/v1/jobs").then().statusCode(400)
                    .body("errors[0].field", equalTo("maxAttempts"))
                    .body("message", equalTo("invalid JSON: maxAttempts: must be a whole number"));
        }
        for (String field : List.of("type", "repeatEvery", "dueAt")) {
            String body = field.equals("type") ? "{\"type\":123}" : "{\"type\":\"noop\",\"" + field + "\":60}";
            api().body(body).post("/api/v1/jobs").then().statusCode(400)
                    .body("errors[0].field", equalTo(field))
                    .body("message", equalTo("invalid JSON: " + field + ": must be a string"));
        }
        api().body("{\"type\":false}").post("/api/v1/jobs").then().statusCode(400).body("errors[0].field", equalTo("type"));
        // Stored in milliseconds: a finer period was cut, and read back cut.
        api().body("{\"type\":\"noop\",\"repeatEvery\":\"PT1.0009S\"}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("repeatEvery"))
                .body("errors[0].message", equalTo("must be a whole number of milliseconds, got 'PT1.0009S'"));
        api().body("{\"type\":\"noop\",\"maxAttempts\":99999999999}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("maxAttempts"))
                .body("message", equalTo("invalid JSON: maxAttempts: is a number out of range"));
        api().body("{\"type\": ").post("/api/v1/jobs").then().statusCode(400)
                .body("message", equalTo("invalid JSON: body: is not valid JSON (line 1, column 10)"));
        api().body("[]").post("/api/v1/jobs").then().statusCode(400)
                .body("message", equalTo("invalid JSON: body: must be an object"));
        api().body("{\"jobs\":{}}").post("/api/v1/jobs/batch").then().statusCode(400)
                .body("errors[0].field", equalTo("jobs")).body("message", equalTo("invalid JSON: jobs: must be an array"));
        api().body("{\"type\":\"noop\",\"payload\":" + "[".repeat(2000) + "]".repeat(2000) + "}").post("/api/v1/jobs")
                .then().statusCode(400)
                .body("message", containsString("is beyond the limits of a request"));
        // One bad job in a batch: the whole batch is refused, the bad one named by index.
        api().body("{\"jobs\":[{\"type\":\"noop\"},{\"type\":\"noop\"},{\"type\":\"noop\"},{\"type\":\"\"}]}")
                .post("/api/v1/jobs/batch").then().statusCode(400)
                .body("errors[0].field", equalTo("jobs[3].type"));
        api().body("{\"jobs\":[" + IntStream.range(0, 5001).mapToObj(i -> "{\"type\":\"noop\"}")
                        .collect(Collectors.joining(",")) + "]}")
                .post("/api/v1/jobs/batch").then().statusCode(400).body("message", containsString("at most 5000"));
        assertThat(jobs().count("select count(*) from {s}.job")).as("jobs written by rejected calls").isEqualTo(before);
    }

    @Test
    void timersAreScheduledAndCounted() {
        String due = Instant.now().plusSeconds(3600).toString();
        long id = api().body("{\"type\":\"noop\",\"dueAt\":\"" + due + "\",\"repeatEvery\":\"PT1H\"}")
                .post("/api/v1/jobs").then().statusCode(201).extract().jsonPath().getLong("id");
        api().get("/api/v1/jobs/" + id).then().statusCode(200).body("status", equalTo("scheduled"))
                .body("repeatEvery", equalTo("PT1H"));
        // What the API shows, it takes back: the period as ISO-8601, not the database's interval text.
        long again = api().body("{\"type\":\"noop\",\"dueAt\":\"" + due + "\",\"repeatEvery\":\"1.5s\"}")
                .post("/api/v1/jobs").then().statusCode(201).extract().jsonPath().getLong("id");
        String shown = api().get("/api/v1/jobs/" + again).then().statusCode(200).extract().jsonPath().getString("repeatEvery");
        assertThat(shown).isEqualTo("PT1.5S");
        api().body("{\"type\":\"noop\",\"dueAt\":\"" + due + "\",\"repeatEvery\":\"" + shown + "\"}")
                .post("/api/v1/jobs").then().statusCode(201);
        api().get("/api/v1/stats").then().statusCode(200)
                .body("futureTimers", org.hamcrest.Matchers.greaterThanOrEqualTo(1))
                .body("cap", equalTo(1_000_000)).body("dueBacklog", notNullValue()).body("running", notNullValue());
    }

    /**
     * A page of dead letters is bounded in bytes, not only rows: a thousand 1 MiB payloads took
     * 2 GiB of the node's memory to answer one read (and restarted it). Paging by afterId still
     * reaches every one; a payload larger than an enqueue takes (written with SQL) is omitted.
     */
    @Test
    void aPageOfDeadLettersIsBoundedInBytesAndPagingReachesThemAll() throws Exception {
        long first = jobs().count("select coalesce(max(id), 0) from {s}.dead_letter") + 1_000_000_000L;
        jobs().execute("insert into {s}.dead_letter (id, type, payload, attempts, max_attempts, error, due_at, created_at)"
                + " select " + first + " + i, 'big', repeat('x', 1048576), 1, 1, 'failed', now(), now() from generate_series(0, 9) i");
        jobs().execute("update {s}.dead_letter set payload = repeat('y', 3000000) where id = " + (first + 9));
        List<Long> seen = new java.util.ArrayList<>();
        long after = first - 1;
        int pages = 0;
        while (true) {
            var page = api().get("/api/v1/dead-letters?limit=1000&afterId=" + after).then().statusCode(200).extract().jsonPath();
            List<Long> ids = page.getList("id", Long.class);
            if (ids.isEmpty()) {
                break;
            }
            pages++;
            assertThat(ids.size()).as("rows in a page of 1 MiB payloads").isBetween(1, 5);
            seen.addAll(ids);
            after = ids.getLast();
        }
        assertThat(seen).containsExactlyElementsOf(LongStream.range(first, first + 10).boxed().toList());
        assertThat(pages).isGreaterThanOrEqualTo(2);
        api().get("/api/v1/jobs/" + (first + 9)).then().statusCode(200).body("status", equalTo("dead_letter"))
                .body("payload", org.hamcrest.Matchers.nullValue()).body("payloadOmitted", equalTo(true));
        api().get("/api/v1/jobs/" + first).then().statusCode(200).body("payloadOmitted", equalTo(false))
                .body("payload.length()", equalTo(1048576));
        jobs().execute("delete from {s}.dead_letter where id >= " + first);
    }

    @Test
    void deadLettersCanBeListedRetriedAndDeleted() throws Exception {
        long id = api().body("{\"type\":\"sleep\",\"payload\":\"forever\"}").post("/api/v1/jobs")
                .then().statusCode(201).extract().jsonPath().getLong("id");
        Jobs.await("dead-lettered", Duration.ofSeconds(30),
                () -> jobs().count("select count(*) from {s}.dead_letter where id = " + id) == 1);
        api().get("/api/v1/jobs/" + id).then().statusCode(200).body("status", equalTo("dead_letter"))
                .body("lastError", containsString("sleep payload is not a number"));
        api().get("/api/v1/dead-letters?afterId=" + (id - 1) + "&limit=1").then().statusCode(200)
                .body("$", hasSize(1)).body("[0].id", equalTo((int) id)).body("[0].error", containsString("InvalidPayloadException"));
        api().get("/api/v1/dead-letters?limit=0").then().statusCode(400).body("errors[0].field", equalTo("limit"));

        api().post("/api/v1/dead-letters/" + id + "/retry").then().statusCode(200).body("status", equalTo("due"));
        Jobs.await("dead-lettered again after the retry", Duration.ofSeconds(30),
                () -> jobs().count("select count(*) from {s}.dead_letter where id = " + id) == 1);
        api().delete("/api/v1/dead-letters/" + id).then().statusCode(204);
        api().delete("/api/v1/dead-letters/" + id).then().statusCode(404);
        api().post("/api/v1/dead-letters/" + id + "/retry").then().statusCode(404)
                .body("message", equalTo("no dead letter or job with id " + id + " (a job that completed is deleted)"));
    }

    /**
     * A body sent as a form (curl -d without a Content-Type) is answered in the API's words, as
     * JSON: it is not read ahead of the endpoint as the JSON bodies are (BodyLimit), where the
     * server would decode it as a form first and answer its errors in its own words.
     */
    @Test
    void aFormBodyIsAnsweredUnsupportedInTheApisWords() {
        given().header("Authorization", "Bearer " + WithApiToken.TOKEN).contentType("application/x-www-form-urlencoded")
                .body("{\"type\":\"noop\",\"payload\":\"" + "x".repeat(5000) + "\"}").post("/api/v1/jobs")
                .then().statusCode(415).contentType(ContentType.JSON).body("message", notNullValue());
    }

    /**
     * A retry sent again by a caller that lost the first one's answer (a timeout, a dropped
     * connection) is told the job is back in the jobs: 409 naming the id and its state. It was
     * answered 404, "no dead letter", as if the job did not exist.
     */
    @Test
    void aRetryRepeatedIsToldTheJobIsBack() throws Exception {
        long id = jobs().count("select coalesce(max(id), 0) from {s}.dead_letter") + 2_000_000_000L;
        // A type no node here handles: once retried, the job stays in the jobs (handed back, not run).
        jobs().execute("insert into {s}.dead_letter (id, type, payload, attempts, max_attempts, error, due_at, created_at)"
                + " values (" + id + ", 'nobody-handles-" + id + "', null, 3, 3, 'failed', now(), now())");
        api().post("/api/v1/dead-letters/" + id + "/retry").then().statusCode(200).body("status", equalTo("due"));
        api().post("/api/v1/dead-letters/" + id + "/retry").then().statusCode(409)
                .body("errors[0].field", equalTo("id"))
                .body("errors[0].message", containsString("is not a dead letter: job " + id + " is in the jobs ("))
                .body("message", containsString("conflict: id: "));
        assertThat(jobs().count("select count(*) from {s}.job where id = " + id)).isEqualTo(1);
        jobs().execute("delete from {s}.job where id = " + id);
    }

    /** A dead letter written by hand with what the jobs table refuses: the retry names the id and the rule. */
    @Test
    void aRetryOfADeadLetterTheJobsTableRefusesNamesTheRule() throws Exception {
        long id = jobs().count("select coalesce(max(id), 0) from {s}.dead_letter") + 2_100_000_000L;
        jobs().execute("insert into {s}.dead_letter (id, type, payload, attempts, max_attempts, error, due_at, created_at)"
                + " values (" + id + ", 'noop', null, 3, 0, 'failed', now(), now())");
        api().post("/api/v1/dead-letters/" + id + "/retry").then().statusCode(409)
                .body("errors[0].field", equalTo("id"))
                .body("errors[0].message", equalTo("dead letter " + id + " cannot become a job: one of its values breaks"
                        + " the jobs table's rule job_max_attempts_check (SQLState 23514); correct the row, or delete it"));
        assertThat(jobs().count("select count(*) from {s}.dead_letter where id = " + id)).as("left as it was").isEqualTo(1);
        jobs().execute("delete from {s}.dead_letter where id = " + id);
    }

    /**
     * A recurring timer dead-lettered and retried runs once at the retry, then on its own grid
     * again: it came back with no grid, and ran at the retry's minute from then on.
     */
    @Test
    void aRecurringTimerRetriedFromDeadLettersKeepsItsGrid() throws Exception {
        // Hourly at :17:23, dead-lettered before it ran: a payload too large, written with SQL.
        String slot = "date_trunc('hour', now()) - interval '2 hours' + interval '17 minutes 23 seconds'";
        long id = jobs().count("insert into {s}.job (type, payload, due_at, repeat_interval, max_attempts)"
                + " values ('noop', repeat('x', 1048577), " + slot + ", interval '1 hour', 3) returning id");
        Jobs.await("dead-lettered", Duration.ofSeconds(30),
                () -> jobs().count("select count(*) from {s}.dead_letter where id = " + id) == 1);
        assertThat(jobs().count("select extract(epoch from grid_at)::bigint % 3600 from {s}.dead_letter where id = " + id))
                .as("the dead letter's slot of the grid (seconds past the hour)").isEqualTo(17 * 60 + 23);

        jobs().execute("update {s}.dead_letter set payload = '' where id = " + id); // fixed
        api().post("/api/v1/dead-letters/" + id + "/retry").then().statusCode(200).body("status", equalTo("due"));
        Jobs.await("run at the retry, and due at its next slot", Duration.ofSeconds(30),
                () -> jobs().count("select count(*) from {s}.job where id = " + id + " and due_at > now() and grid_at is null"
                        + " and last_error is null") == 1);
        assertThat(jobs().count("select extract(epoch from due_at)::bigint % 3600 from {s}.job where id = " + id))
                .as("the next slot, on the timer's grid").isEqualTo(17 * 60 + 23);
        jobs().execute("delete from {s}.job where id = " + id);
    }

    @Test
    void everyCallNeedsTheToken() {
        given().get("/api/v1/stats").then().statusCode(401).header("WWW-Authenticate", containsString("Bearer"));
        given().header("Authorization", "Bearer wrong").contentType(ContentType.JSON).body("{\"type\":\"noop\"}")
                .post("/api/v1/jobs").then().statusCode(401).body("message", equalTo("invalid bearer token"));
        given().get("/q/openapi").then().statusCode(200).body(containsString("/api/v1/jobs/batch"));
    }

    @Test
    void aNulCharacterIsRefusedNamingTheField() {
        // Valid JSON, valid Java, refused by PostgreSQL text: named by the API, before the database
        // (which would have answered 22021 and lost the field, and in a batch the job's index).
        api().body("{\"type\":\"noop\",\"payload\":\"a\\u0000b\"}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("payload")).body("errors[0].message", containsString("NUL character"));
        api().body("{\"jobs\":[{\"type\":\"noop\"},{\"type\":\"no\\u0000op\"}]}").post("/api/v1/jobs/batch").then()
                .statusCode(400).body("errors[0].field", equalTo("jobs[1].type"));
    }

    /** Payload numbers are stored as written: no double in between (12345678901234567.89, 1e400, 1.50). */
    @Test
    void payloadNumbersAreKeptAsWritten() {
        String due = Instant.now().plusSeconds(3600).toString(); // still in the table when read
        long id = api().body("{\"type\":\"noop\",\"dueAt\":\"" + due + "\",\"payload\":{\"amount\":12345678901234567.89,\"huge\":1e400,"
                        + "\"price\":1.50,\"big\":123456789012345678901234567890}}")
                .post("/api/v1/jobs").then().statusCode(201).extract().jsonPath().getLong("id");
        String payload = jobs().text("select payload from {s}.job where id = " + id);
        assertThat(payload).contains("12345678901234567.89", "1E+400", "1.50", "123456789012345678901234567890")
                .doesNotContain("Infinity", "E16");
    }

    /** A field given twice is refused naming it: last-wins would run another job than a gateway that keeps the first saw. */
    @Test
    void aFieldGivenTwiceIsRefusedNamingIt() {
        long before = jobs().count("select count(*) from {s}.job");
        api().body("{\"type\":\"noop\",\"type\":\"http\",\"payload\":{}}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("type"))
                .body("message", equalTo("invalid JSON: type: is given more than once in one object"));
        api().body("{\"type\":\"noop\",\"payload\":{\"a\":[{\"x\":1,\"x\":2}]}}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("payload.a[0].x"));
        api().body("{\"type\":\"noop\",\"maxAttempts\":1.7}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("maxAttempts"));
        // Whatever follows the value is no less the request: it was ignored, so two different
        // bodies were one request to an idempotent retry.
        api().body("{\"type\":\"noop\"}{\"type\":\"http\"}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("body"))
                .body("message", equalTo("invalid JSON: body: has something after its JSON value"));
        api().body("{\"type\":\"noop\"} garbage ]]]").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("body"));
        api().body("{\"jobs\":[{\"type\":\"noop\"}]} trailing").post("/api/v1/jobs/batch").then().statusCode(400)
                .body("errors[0].field", equalTo("body"));
        assertThat(jobs().count("select count(*) from {s}.job")).as("jobs written by refused calls").isEqualTo(before);
    }

    /** Text that is not text (a lone surrogate), or a body in no encoding JSON allows: 400s naming the field, never a 500. */
    @Test
    void textThatIsNoTextIsRefusedNamingTheField() {
        api().body("{\"type\":\"noop\",\"payload\":\"\\ud800x\"}").post("/api/v1/jobs").then().statusCode(400)
                .body("errors[0].field", equalTo("payload")).body("errors[0].message", containsString("unpaired UTF-16 surrogate"));
        api().body("{\"jobs\":[{\"type\":\"noop\"},{\"type\":\"no\\udc00op\"}]}").post("/api/v1/jobs/batch").then()
                .statusCode(400).body("errors[0].field", equalTo("jobs[1].type"));
        api().body("{\"type\":\"noop\",\"payload\":\"\\ud83d\\ude00\"}").post("/api/v1/jobs").then().statusCode(201);
        // A number within the parser's 1,000 digits as written, but not as stored (BigDecimal's
        // text of 996 digits at e-1001 is 0.000..., 1,002 digits): refused, where it was taken and
        // the job dead-lettered at its first run, its payload unreadable to handlers.
        String digits = "7".repeat(996);
        api().body("{\"type\":\"noop\",\"payload\":{\"n\":" + digits + "e-1001}}").post("/api/v1/jobs").then()
                .statusCode(400).body("errors[0].field", equalTo("payload"))
                .body("errors[0].message", containsString("beyond the limits of a request"));
        api().body("{\"type\":\"noop\",\"payload\":{\"n\":" + digits + "e-5}}").post("/api/v1/jobs").then().statusCode(201);
        api().body(new byte[] {0, 0, 0, 0x7B, 0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF}).post("/api/v1/jobs").then()
                .statusCode(400).body("errors[0].field", equalTo("body"));
        // A refused value is echoed shortened, not whole (twice).
        String longDue = "x".repeat(100_000);
        String answer = api().body("{\"type\":\"noop\",\"dueAt\":\"" + longDue + "\"}").post("/api/v1/jobs").then()
                .statusCode(400).body("errors[0].field", equalTo("dueAt")).extract().asString();
        assertThat(answer.length()).isLessThan(2_000);
    }

    /**
     * A batch within maxBatch can still be larger than the HTTP server takes (10,000 jobs of about
     * 1 KiB): the answer says so in the API's words, naming the body and the limit, not an empty 413.
     */
    @Test
    void aBodyOverTheServersLimitIsRefusedSayingHowLargeABodyMayBe() throws Exception {
        String job = "{\"type\":\"noop\",\"payload\":\"" + "x".repeat(1100) + "\"}";
        String body = IntStream.range(0, 10_000).mapToObj(i -> job).collect(Collectors.joining(",", "{\"jobs\":[", "]}"));
        api().body(body).post("/api/v1/jobs/batch").then().statusCode(413)
                .contentType(ContentType.JSON)
                .body("errors[0].field", equalTo("body"))
                .body("errors[0].message", equalTo("must be at most 10,485,760 bytes, got " + String.format("%,d",
                        body.length()) + "; send the jobs in smaller batches"));

        // Without the write token: the server's own answer, before it reads the body (a stranger
        // cannot make the node read large bodies). Only the headers and 1 KiB of the 10 MiB go:
        // the answer must come without the rest.
        try (java.net.Socket socket = new java.net.Socket(URI.create(RestAssured.baseURI).getHost(), RestAssured.port)) {
            socket.setSoTimeout(10_000);
            var out = socket.getOutputStream();
            out.write(("POST /api/v1/jobs/batch HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n" + body.substring(0, 1024))
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            out.flush();
            // Its status line only: what follows may be cut by a reset, the rest of the body unread.
            var in = socket.getInputStream();
            StringBuilder status = new StringBuilder();
            for (int b = in.read(); b != -1 && b != '\n'; b = in.read()) {
                status.append((char) b);
            }
            assertThat(status.toString()).as("the answer to a stranger's large body, before the body").startsWith("HTTP/1.1 413");
        }
    }

    @Test
    void numbersInThePathAndTheQueryAreReadNamingTheParameter() {
        api().get("/api/v1/dead-letters?limit=abc").then().statusCode(400).body("errors[0].field", equalTo("limit"))
                .body("errors[0].message", equalTo("must be a whole number, got 'abc'"));
        api().get("/api/v1/dead-letters?limit=99999999999").then().statusCode(400).body("errors[0].field", equalTo("limit"));
        api().get("/api/v1/dead-letters?afterId=x").then().statusCode(400).body("errors[0].field", equalTo("afterId"));
        api().get("/api/v1/jobs/abc").then().statusCode(404)
                .body("message", equalTo("no job or dead letter with id 'abc': ids are whole numbers"));
        api().post("/api/v1/dead-letters/x/retry").then().statusCode(404).body("message", containsString("no dead letter with id 'x'"));
    }
}
