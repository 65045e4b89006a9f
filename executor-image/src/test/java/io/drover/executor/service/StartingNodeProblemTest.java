package io.drover.executor.service;

import io.drover.executor.testing.Jobs;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node whose start-up keeps failing names why in its figures (GET /q/drover/node, which the
 * operator reads for the ExecutorCluster's conditions) while it retries, for all of its
 * startupTimeout: the operator said only "not ready" until the node gave up (5 minutes by
 * default) and its termination message named the cause. In the words a running node uses, never
 * the driver's text.
 */
@QuarkusTest
@TestProfile(StartingNodeProblemTest.NoDatabase.class)
class StartingNodeProblemTest {
    /** A database nothing listens for (port 1), and the default startupTimeout: the node keeps trying. */
    public static class NoDatabase implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.datasource.jdbc.url", "jdbc:postgresql://127.0.0.1:1/postgres",
                    "quarkus.datasource.username", "nobody", "quarkus.datasource.password", "none",
                    "quarkus.datasource.jdbc.additional-jdbc-properties.connectTimeout", "1");
        }
    }

    @Test
    void aStartingNodeNamesWhyItCannotStartYet() throws Exception {
        Jobs.await("the figures name the problem", Duration.ofSeconds(30),
                () -> given().get("/q/drover/node").jsonPath().getString("problem") != null);
        String problem = given().get("/q/drover/node").then().statusCode(200).extract().jsonPath().getString("problem");
        assertThat(problem).startsWith("DatabaseUnreachable: ").contains("SQLState 08")
                .doesNotContain("127.0.0.1").doesNotContain("Connection refused");
        given().get("/q/health/ready").then().statusCode(503);
    }
}
