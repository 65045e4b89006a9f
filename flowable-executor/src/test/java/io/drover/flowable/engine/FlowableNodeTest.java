package io.drover.flowable.engine;

import io.drover.flowable.testing.EmbeddedPostgres;
import io.drover.flowable.testing.RunningNode;
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
        ProcessEngine engine = RunningNode.engine(node);
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

    /**
     * Flowable never renews a lock: a job queued and run longer than lockExpiry (4 s here) would be
     * reset by the expired-job sweep (every 2 s) and run a second time beside the first. The node
     * renews its locks, so each of these 9 s jobs runs once, and its lock moves forward meanwhile.
     */
    @Test
    void locksOfLongJobsAreRenewedSoTheyRunOnce() throws Exception {
        ProcessEngine engine = RunningNode.engine(node);
        double failedBefore = executed("failed");
        double before = executed("succeeded") + failedBefore;
        var runtime = engine.getRuntimeService();
        var ids = java.util.List.of(runtime.startProcessInstanceByKey("asyncSleep", Map.of("ms", 9000)).getId(),
                runtime.startProcessInstanceByKey("asyncSleep", Map.of("ms", 9000)).getId());
        Thread.sleep(1500);
        java.sql.Timestamp first = lockExpiry();
        Thread.sleep(4000);
        java.sql.Timestamp later = lockExpiry();
        assertThat(first).as("the running jobs' lock").isNotNull();
        assertThat(later).as("the lock, renewed past its first expiry").isAfter(first);
        Instant deadline = Instant.now().plus(Duration.ofSeconds(40));
        while (runtime.createProcessInstanceQuery().processInstanceIds(new java.util.HashSet<>(ids)).count() > 0
                && Instant.now().isBefore(deadline)) {
            Thread.sleep(200);
        }
        assertThat(runtime.createProcessInstanceQuery().processInstanceIds(new java.util.HashSet<>(ids)).count()).isZero();
        assertThat(executed("succeeded") + executed("failed") - before).as("runs of the two jobs").isEqualTo(2);
        assertThat(executed("failed") - failedBefore).as("no run lost its commit to a second one").isZero();
    }

    /**
     * A run whose transaction fails at its flush (the user task after the job gets a name longer than
     * its column) is one failed run. Flowable dispatches a job's success inside its transaction,
     * before the flush; counted then, this run showed as one success and one failure.
     */
    @Test
    void aRunWhoseCommitFailsIsCountedOnceAsAFailure() throws Exception {
        ProcessEngine engine = RunningNode.engine(node);
        engine.getRepositoryService().createDeployment().addString("commit-fails.bpmn20.xml", COMMIT_FAILS).deploy();
        double succeeded = executed("succeeded");
        double failed = executed("failed");
        var runtime = engine.getRuntimeService();
        String id = runtime.startProcessInstanceByKey("commitFails", Map.of("longName", "x".repeat(300))).getId();
        try {
            Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
            while (executed("failed") == failed && Instant.now().isBefore(deadline)) {
                Thread.sleep(200);
            }
            assertThat(executed("failed") - failed).as("failed runs of the job whose commit fails").isGreaterThanOrEqualTo(1);
            assertThat(executed("succeeded") - succeeded).as("successes counted for a run that never committed").isZero();
        } finally {
            runtime.deleteProcessInstance(id, "test over");
        }
    }

    private static final String COMMIT_FAILS = """
            <?xml version="1.0" encoding="UTF-8"?>
            <definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:flowable="http://flowable.org/bpmn"
                         targetNamespace="https://drover.io/flowable/test">
              <process id="commitFails" isExecutable="true">
                <startEvent id="start"/>
                <sequenceFlow id="toTask" sourceRef="start" targetRef="noop"/>
                <serviceTask id="noop" flowable:async="true" flowable:exclusive="false" flowable:class="io.drover.flowable.delegates.Noop"/>
                <sequenceFlow id="toWait" sourceRef="noop" targetRef="wait"/>
                <userTask id="wait" name="${longName}"/>
                <sequenceFlow id="toEnd" sourceRef="wait" targetRef="end"/>
                <endEvent id="end"/>
              </process>
            </definitions>
            """;

    private static java.sql.Timestamp lockExpiry() throws Exception {
        try (Connection c = EmbeddedPostgres.server().getPostgresDatabase().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select min(lock_exp_time_) from flowable_test.act_ru_job where lock_owner_ is not null")) {
            rs.next();
            return rs.getTimestamp(1);
        }
    }

    private static double executed(String outcome) {
        String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
        double sum = 0;
        for (String line : metrics.split("\n")) {
            if (line.startsWith("drover_jobs_executed_total{") && line.contains("outcome=\"" + outcome + "\"")
                    && line.contains("type=\"async-continuation\"")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }
}
