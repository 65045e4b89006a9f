package io.drover.flowable.service;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node whose database cannot be reached is alive, not ready, and says why in words safe to
 * show whoever reaches the pod: the SQLState, never the driver's message (it names the host and
 * port, and for other failures roles and databases; the log keeps it).
 */
@QuarkusTest
@TestProfile(DatabaseAwayTest.NoDatabase.class)
class DatabaseAwayTest {
    public static class NoDatabase implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "quarkus.datasource.jdbc.url", "jdbc:postgresql://127.0.0.1:" + closedPort() + "/jobs",
                    "quarkus.datasource.username", "flowable",
                    "quarkus.datasource.password", "secret",
                    "drover.schema", "flowable_away",
                    "drover.nodeName", "flowable-away-0",
                    "drover.lockMode", "Global",
                    "drover.startupTimeout", "10m");
        }

        private static int closedPort() {
            try (ServerSocket s = new ServerSocket(0)) {
                return s.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Test
    void readinessNamesTheSqlStateNotTheDriversMessage() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String body;
        do { // until the start-up's first failure is in
            Thread.sleep(200);
            body = given().get("/q/health/ready").then().statusCode(503).extract().asString();
        } while (!body.contains("the database: DatabaseUnreachable") && System.nanoTime() < deadline);
        // The engine's start and the pool's check, in the words of a Drover node (DatabaseDiagnosis)
        assertThat(body).contains("the database: DatabaseUnreachable: the database cannot be reached or ended the session (SQLState 08001)",
                        "\"problem\": \"DatabaseUnreachable: the database cannot be reached or ended the session (SQLState 08001)\"")
                .doesNotContain("Connection to", "127.0.0.1", "postmaster", "flowable@");
        given().get("/q/health/live").then().statusCode(200);
    }
}
