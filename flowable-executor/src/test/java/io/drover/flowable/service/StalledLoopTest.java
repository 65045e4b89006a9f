package io.drover.flowable.service;

import io.drover.flowable.engine.FlowableNode;
import io.drover.flowable.testing.EmbeddedPostgres;
import io.drover.flowable.testing.RunningNode;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Liveness of a node whose acquisition loop stops turning, on a real PostgreSQL. Frozen
 * (SIGSTOP), the database answers nobody, and Flowable's loops wait in socket reads for as long
 * as it keeps silent: the node is unready, not dead, and runs on once the database does; a restart
 * would not have brought the database back. Stuck while the database answers the node's other
 * calls (here a table lock holds the jobs loop's query), the loop is the node's fault: liveness
 * says so, and the pod would restart. The stall budget here: 2 x (1 s + 4 s) + 30 s = 40 s.
 */
@QuarkusTest
@WithTestResource(StalledLoopTest.ShortBudget.class)
class StalledLoopTest {
    private static final String SCHEMA = "flowable_stalled";
    private static final Duration PAST_THE_BUDGET = Duration.ofSeconds(55);

    /** The shared PostgreSQL, with a schema of this test's own (its job table is locked) and a short stall budget. */
    public static class ShortBudget extends EmbeddedPostgres {
        @Override
        public Map<String, String> start() {
            Map<String, String> settings = new HashMap<>(super.start());
            settings.put("drover.schema", SCHEMA);
            settings.put("drover.nodeName", "flowable-stalled-0");
            settings.put("drover.globalLockWaitTime", "1s");
            return settings;
        }
    }

    @Inject
    FlowableNode node;

    @Test
    void aLoopWaitingOnAFrozenDatabaseIsUnreadyNotDeadAndOneStuckWhileTheDatabaseAnswersIsDead() throws Exception {
        RunningNode.engine(node);
        given().get("/q/health/ready").then().statusCode(200);
        given().get("/q/health/live").then().statusCode(200);

        List<ProcessHandle> server = frozen();
        try {
            long until = System.nanoTime() + PAST_THE_BUDGET.toNanos();
            while (System.nanoTime() < until) {
                given().get("/q/health/ready").then().statusCode(503);
                Thread.sleep(1000);
            }
            given().get("/q/health/live").then().statusCode(200);
        } finally {
            signal("-CONT", server.reversed());
        }
        awaitStatus("/q/health/ready", 200, Duration.ofSeconds(60));
        awaitStatus("/q/health/live", 200, Duration.ofSeconds(60));

        try (Connection c = EmbeddedPostgres.server().getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("lock table " + SCHEMA + ".act_ru_job in access exclusive mode");
            long until = System.nanoTime() + PAST_THE_BUDGET.toNanos();
            int live;
            do { // the kubelet's readiness probe, which records the database's answers
                given().get("/q/health/ready");
                Thread.sleep(1000);
                live = given().get("/q/health/live").then().extract().statusCode();
            } while (live == 200 && System.nanoTime() < until);
            assertThat(given().get("/q/health/live").then().extract().asString())
                    .as("liveness of a node whose jobs loop is stuck while the database answers")
                    .contains("\"status\": \"DOWN\"", "an acquisition loop has not turned for", "while the database answers");
            c.rollback();
        }
        awaitStatus("/q/health/live", 200, Duration.ofSeconds(30));
    }

    /** Stops the embedded server's postmaster and every process under it; returns them, postmaster first. */
    private static List<ProcessHandle> frozen() throws Exception {
        ProcessHandle postmaster;
        try (Connection c = EmbeddedPostgres.server().getPostgresDatabase().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
            rs.next();
            postmaster = ProcessHandle.of(rs.getLong(1)).flatMap(ProcessHandle::parent).orElseThrow(); // while the backend lives
        }
        // Stopped first, it forks no new backend; then its children (this test's backend may have exited meanwhile).
        signal("-STOP", List.of(postmaster));
        List<ProcessHandle> all = new ArrayList<>();
        all.add(postmaster);
        postmaster.children().filter(ProcessHandle::isAlive).forEach(all::add);
        signal("-STOP", all.subList(1, all.size()));
        return all;
    }

    private static void signal(String signal, List<ProcessHandle> processes) throws Exception {
        for (ProcessHandle p : processes) {
            int exit = new ProcessBuilder("kill", signal, Long.toString(p.pid())).inheritIO().start().waitFor();
            assertThat(exit == 0 || !p.isAlive()).as("kill " + signal + " " + p.pid()).isTrue();
        }
    }

    private static void awaitStatus(String path, int status, Duration within) throws InterruptedException {
        long until = System.nanoTime() + within.toNanos();
        int now;
        while ((now = given().get(path).then().extract().statusCode()) != status && System.nanoTime() < until) {
            Thread.sleep(500);
        }
        assertThat(now).as(path).isEqualTo(status);
    }
}
