package io.drover.flowable.engine;

import io.drover.flowable.testing.EmbeddedPostgres;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.flowable.engine.ProcessEngine;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

/**
 * The node on a real PostgreSQL: Flowable's schema in the cluster's schema, the bundled models
 * deployed, and its async executor (Global lock mode) running async no-op, sleep and due timer
 * jobs to the end; the probes and metrics on the paths the operator and the dashboard use.
 */
@QuarkusTest
@WithTestResource(EmbeddedPostgres.class)
class FlowableNodeTest {
    @Inject
    FlowableNode node;

    @Test
    void runsAsyncJobsAndDueTimersToTheEnd() throws Exception {
        ProcessEngine engine = awaitEngine();
        given().get("/q/health/ready").then().statusCode(200);
        given().get("/q/health/live").then().statusCode(200);

        var runtime = engine.getRuntimeService();
        for (int i = 0; i < 200; i++) {
            runtime.startProcessInstanceByKey("asyncNoop");
        }
        for (int i = 0; i < 20; i++) {
            runtime.startProcessInstanceByKey("asyncSleep", Map.of("ms", 10));
        }
        for (int i = 0; i < 50; i++) {
            runtime.startProcessInstanceByKey("timer", Map.of("dueAt", Instant.now().toString()));
        }
        Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
        long left;
        while ((left = runtime.createProcessInstanceQuery().count()) > 0 && Instant.now().isBefore(deadline)) {
            Thread.sleep(200);
        }
        assertThat(left).as("process instances left unfinished").isZero();
        assertThat(engine.getManagementService().createDeadLetterJobQuery().count()).as("dead-lettered jobs").isZero();

        try (Connection c = EmbeddedPostgres.server().getPostgresDatabase().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select count(*) from information_schema.tables"
                     + " where table_schema = 'flowable_test' and table_name in ('act_ru_job', 'act_ru_timer_job')")) {
            rs.next();
            assertThat(rs.getInt(1)).as("Flowable's job tables in the cluster's schema").isEqualTo(2);
        }
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("drover_jobs_executed_total{outcome=\"succeeded\",type=\"async-continuation\"}"))
                .body(containsString("drover_jobs_executed_total{outcome=\"succeeded\",type=\"trigger-timer\"}"))
                .body(containsString("drover_threads_busy"))
                .body(containsString("drover_queue_capacity"));
    }

    private ProcessEngine awaitEngine() throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofMinutes(1));
        while (node.state() != FlowableNode.State.RUNNING && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
        }
        assertThat(node.state()).as("node state (waiting for: " + node.waitingFor() + ")").isEqualTo(FlowableNode.State.RUNNING);
        return node.engine();
    }
}
