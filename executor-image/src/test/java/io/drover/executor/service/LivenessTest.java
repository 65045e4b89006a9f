package io.drover.executor.service;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.PostgresResource;
import io.drover.executor.testing.StubbornHandler;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Liveness over HTTP, as the kubelet reads it: a node whose every worker is stuck in a handler
 * that ignores its timeout's interrupt answers 503 on /q/health/live, naming why, so its pod is
 * restarted rather than holding its jobs while it looks healthy; and 200 again once the handlers
 * return. (The engine's own reasons are tested against the engine; this is the mapping to the
 * status code the restart depends on.)
 */
@QuarkusTest
@TestProfile(LivenessTest.StuckWorkers.class)
@QuarkusTestResource(PostgresResource.class)
class LivenessTest {
    static final String SCHEMA = "liveness_test";

    /** Two workers, a one-second jobTimeout, and a schema of its own. */
    public static class StuckWorkers implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("drover.schema", SCHEMA, "drover.threads", "2", "drover.jobTimeout", "1s");
        }
    }

    @Inject
    AgroalDataSource dataSource;

    @Inject
    ExecutorNode service;

    @AfterAll
    static void releaseHandlers() {
        StubbornHandler.release();
    }

    @Test
    void everyWorkerStuckInAHandlerFailsLivenessAndItRecoversWhenTheyReturn() throws Exception {
        Jobs.await("the node started", Duration.ofSeconds(60), service::started);
        assertThat(live().statusCode()).as("liveness of a node at work").isEqualTo(200);

        Jobs jobs = new Jobs(dataSource, SCHEMA);
        jobs.enqueue(2, StubbornHandler.TYPE, "", 1);
        service.jobsEnqueued();
        Jobs.await("liveness answers 503", Duration.ofSeconds(60), () -> live().statusCode() == 503);
        Response down = live();
        assertThat(down.jsonPath().getString("checks.find { it.name == 'drover-engine' }.data.stuck"))
                .isEqualTo("2 worker threads are stuck in handlers that ignore interrupts");

        StubbornHandler.release();
        Jobs.await("liveness answers 200 once the handlers returned", Duration.ofSeconds(30),
                () -> live().statusCode() == 200);
    }

    private static Response live() {
        return given().get("/q/health/live").thenReturn();
    }
}
