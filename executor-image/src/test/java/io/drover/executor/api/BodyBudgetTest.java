package io.drover.executor.api;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.PostgresResource;
import io.drover.executor.testing.WithApiToken;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bytes of request bodies a node reads at once are bounded (drover.api.maxBodyBytesInFlight,
 * here 128 KiB, bodies of at most 48 KiB; a writer's JSON body with a length counts twice, as it is
 * held whole and copied for the parser: BodyLimit): a body that does not fit beside those being read is answered 503 with
 * Retry-After, and the room a body took is given back when its call ends, answered or abandoned.
 * A body held half-sent on a raw socket stands for one still arriving. Jobs are timers an hour
 * ahead of a type no node handles, so they stay in the table to be counted.
 */
@QuarkusTest
@TestProfile(BodyBudgetTest.SmallBudget.class)
@QuarkusTestResource(PostgresResource.class)
class BodyBudgetTest {
    private static final String LATER = Instant.now().plus(1, ChronoUnit.HOURS).toString();

    public static class SmallBudget implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> settings = new HashMap<>(new WithApiToken().getConfigOverrides());
            settings.put("drover.api.maxBodyBytesInFlight", "128K");
            // The budget is never less than one body of the largest size.
            settings.put("quarkus.http.limits.max-body-size", "48K");
            return settings;
        }
    }

    @Inject
    AgroalDataSource dataSource;

    /** A job request of exactly {@code bytes} bytes. */
    private static String job(String type, int bytes) {
        String head = "{\"type\":\"" + type + "\",\"dueAt\":\"" + LATER + "\",\"payload\":\"";
        String tail = "\"}";
        return head + "x".repeat(bytes - head.length() - tail.length()) + tail;
    }

    private static Response post(String body) {
        return WithApiToken.writer().body(body).post("/api/v1/jobs");
    }

    private long jobsOfType(String type) {
        return PostgresResource.jobs(dataSource).count("select count(*) from {s}.job where type = '" + type + "'");
    }

    /** Sends the headers and the first half of {@code body}, and holds the rest. */
    private static Socket halfSent(String body) throws Exception {
        return halfSent("/api/v1/jobs", body);
    }

    private static Socket halfSent(String path, String body) throws Exception {
        return halfSent(path, "Bearer " + WithApiToken.TOKEN.strip(), body);
    }

    private static Socket halfSent(String path, String authorization, String body) throws Exception {
        Socket socket = new Socket("localhost", RestAssured.port);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        out.write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nAuthorization: " + authorization
                + "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(bytes, 0, bytes.length / 2);
        out.flush();
        return socket;
    }

    /** Posts {@code body} until the node answers 503 (the held body's headers have been read), within 10 s. */
    private static Response refusedWhileHeld(String body) throws InterruptedException {
        long until = System.nanoTime() + 10_000_000_000L;
        Response answer = post(body);
        while (answer.statusCode() != 503 && System.nanoTime() < until) {
            Thread.sleep(50);
            answer = post(body);
        }
        return answer;
    }

    @Test
    void aBodyPastWhatTheNodeIsReadingIsAnsweredUnavailableAndTheRoomComesBackWhenTheCallEnds() throws Exception {
        String held = "held-" + UUID.randomUUID();
        String small = "small-" + UUID.randomUUID();
        String after = "after-" + UUID.randomUUID();
        String heldBody = job(held, 40 * 1024);
        try (Socket socket = halfSent(heldBody)) {
            Response refused = refusedWhileHeld(job("probe-" + UUID.randomUUID(), 30 * 1024));
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.header("Retry-After")).isEqualTo("1");
            assertThat(refused.jsonPath().getString("message")).contains("drover.api.maxBodyBytesInFlight")
                    .contains("131,072 bytes");
            // A smaller body still fits beside the held one.
            post(job(small, 10 * 1024)).then().statusCode(201);

            byte[] bytes = heldBody.getBytes(StandardCharsets.UTF_8);
            socket.getOutputStream().write(bytes, bytes.length / 2, bytes.length - bytes.length / 2);
            socket.getOutputStream().flush();
            String status = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
            assertThat(status).contains(" 201 ");
        }
        post(job(after, 30 * 1024)).then().statusCode(201);
        assertThat(jobsOfType(held)).isEqualTo(1);
        assertThat(jobsOfType(small)).isEqualTo(1);
        assertThat(jobsOfType(after)).isEqualTo(1);
    }

    @Test
    void aCallAbandonedMidBodyGivesItsRoomBack() throws Exception {
        String type = "abandoned-" + UUID.randomUUID();
        Socket socket = halfSent(job("never-" + UUID.randomUUID(), 40 * 1024));
        assertThat(refusedWhileHeld(job("probe-" + UUID.randomUUID(), 30 * 1024)).statusCode()).isEqualTo(503);
        socket.setSoLinger(true, 0);
        socket.close();
        long until = System.nanoTime() + 10_000_000_000L;
        int status = post(job(type, 30 * 1024)).statusCode();
        while (status == 503 && System.nanoTime() < until) {
            Thread.sleep(50);
            status = post(job(type, 30 * 1024)).statusCode();
        }
        assertThat(status).isEqualTo(201);
        assertThat(jobsOfType(type)).isEqualTo(1);
    }

    /**
     * The API routes /api;x=1/v1/jobs as /api/v1/jobs (matrix parameters are dropped before
     * matching), while a route on /api/* does not match it: a body sent there took no room, so
     * any number of them could be read at once. Every body takes room, whatever its path.
     */
    @Test
    void aBodySentToAPathWithMatrixParametersTakesItsRoomToo() throws Exception {
        try (Socket socket = halfSent("/api;x=1/v1/jobs", job("matrix-" + UUID.randomUUID(), 40 * 1024))) {
            assertThat(refusedWhileHeld(job("probe-" + UUID.randomUUID(), 30 * 1024)).statusCode()).isEqualTo(503);
        }
    }

    /**
     * Bodies the API will never read hold no room: a caller without the write token is answered
     * (401) before its body is read, and the room its headers took comes back with that answer.
     * A stranger holding bodies half-sent must not keep writers' enqueues at 503.
     */
    @Test
    void aBodyWithoutTheWriteTokenTakesNoRoom() throws Exception {
        String type = "beside-strangers-" + UUID.randomUUID();
        try (Socket none = halfSent("/api/v1/jobs", "Basic eDp5", job("stranger-" + UUID.randomUUID(), 40 * 1024));
             Socket wrong = halfSent("/api/v1/jobs", "Bearer not-the-token", job("stranger-" + UUID.randomUUID(), 40 * 1024))) {
            Thread.sleep(500); // their headers read
            for (int i = 0; i < 5; i++) {
                assertThat(post(job(type, 30 * 1024)).statusCode()).as("a writer's enqueue beside two strangers' bodies")
                        .isEqualTo(201);
            }
        }
        assertThat(jobsOfType(type)).isEqualTo(5);
    }
}
