package io.drover.executor.api;

import io.drover.executor.testing.PostgresResource;
import io.drover.executor.testing.WithApiToken;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.config.HttpClientConfig;
import io.restassured.config.RestAssuredConfig;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Request bodies that arrive slowly hold no worker thread. A blocking endpoint read its body from
 * a worker thread, a read at a time (the REST layer buffers bodies only for endpoints that do not
 * block), so as many writers sending slowly as the pool has threads (here 4; in production
 * max(200, 8 x CPUs)) held them all: the liveness check, which ran on the same pool, timed out and
 * the kubelet restarted the pod, cutting its running jobs, and every other call (a producer's
 * enqueue, the stats, readiness) waited. Liveness runs on the event loop, and a writer's body is
 * read there to its end before its endpoint is called (BodyLimit).
 */
@QuarkusTest
@TestProfile(SlowBodiesTest.FourWorkers.class)
@QuarkusTestResource(PostgresResource.class)
class SlowBodiesTest {
    private static final String LATER = Instant.now().plus(1, ChronoUnit.HOURS).toString();
    private static final int SLOW = 6;

    public static class FourWorkers implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> settings = new HashMap<>(new WithApiToken().getConfigOverrides());
            settings.put("quarkus.thread-pool.core-threads", "1");
            settings.put("quarkus.thread-pool.max-threads", "4");
            return settings;
        }
    }

    private static String job(String type, int bytes) {
        String head = "{\"type\":\"" + type + "\",\"dueAt\":\"" + LATER + "\",\"payload\":\"";
        String tail = "\"}";
        return head + "x".repeat(bytes - head.length() - tail.length()) + tail;
    }

    @Test
    void writersSendingSlowlyLeaveTheNodeAnswering() throws Exception {
        List<Socket> slow = new ArrayList<>();
        List<byte[]> bodies = new ArrayList<>();
        try {
            for (int i = 0; i < SLOW; i++) {
                Socket socket = new Socket("localhost", RestAssured.port);
                socket.setSoTimeout(10_000);
                byte[] body = job("slow-" + UUID.randomUUID(), 40 * 1024).getBytes(StandardCharsets.UTF_8);
                OutputStream out = socket.getOutputStream();
                out.write(("POST /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + WithApiToken.TOKEN.strip()
                        + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(body, 0, body.length / 2);
                out.flush();
                slow.add(socket);
                bodies.add(body);
            }
            Thread.sleep(1000); // their headers and first halves read
            RestAssuredConfig threeSeconds = RestAssured.config().httpClient(HttpClientConfig.httpClientConfig()
                    .setParam("http.socket.timeout", 3000).setParam("http.connection.timeout", 3000));
            given().config(threeSeconds).get("/q/health/live").then().statusCode(200);
            given().config(threeSeconds).get("/q/health/ready").then().statusCode(200);
            given().config(threeSeconds).header("Authorization", "Bearer " + WithApiToken.TOKEN.strip())
                    .get("/api/v1/stats").then().statusCode(200);
            given().config(threeSeconds).header("Authorization", "Bearer " + WithApiToken.TOKEN.strip())
                    .contentType("application/json").body(job("quick-" + UUID.randomUUID(), 1024))
                    .post("/api/v1/jobs").then().statusCode(201);

            // The slow writers finish: each of their calls is taken.
            for (int i = 0; i < SLOW; i++) {
                byte[] body = bodies.get(i);
                OutputStream out = slow.get(i).getOutputStream();
                out.write(body, body.length / 2, body.length - body.length / 2);
                out.flush();
            }
            for (Socket socket : slow) {
                String status = new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
                assertThat(status).isEqualTo("HTTP/1.1 201");
            }
        } finally {
            for (Socket s : slow) {
                s.close();
            }
        }
    }
}
