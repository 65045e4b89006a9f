package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.NodeProcess;
import io.drover.executor.testing.RecordingHandler;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A node that dies (SIGKILL) loses no job: its locks expire, or its successor releases them. */
class CrashRecoveryTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @Test
    void jobsOfAKilledNodeRunAfterLockExpiry() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(3000, RecordingHandler.TYPE, "5", 3);
        Map<String, String> settings = Map.of("lockExpiry", "PT4S", "threads", "4", "queueSize", "200",
                "acquirePageSize", "100");

        try (NodeProcess victim = NodeProcess.start("victim", schema, settings);
             NodeProcess survivor = NodeProcess.start("survivor", schema, settings)) {
            victim.awaitReady();
            survivor.awaitReady();
            Jobs.await("the victim ran some jobs", Duration.ofSeconds(60),
                    () -> jobs.count("select count(*) from {s}.test_execution where node = 'victim'") > 100);
            long heldByVictim = jobs.count("select count(*) from {s}.job where locked_by like 'victim:%'");
            victim.kill();
            jobs.execute("create table {s}.killed_at as select clock_timestamp() as at");
            assertThat(heldByVictim).as("jobs the victim held when killed").isPositive();

            Jobs.await("all jobs executed", Duration.ofMinutes(2), () -> jobs.jobsLeft() == 0);
            survivor.terminate();
        }

        assertThat(jobs.distinctExecuted()).as("distinct jobs executed").isEqualTo(3000);
        assertThat(jobs.distinctFinished()).as("distinct jobs whose run reached its end").isEqualTo(3000);
        assertThat(jobs.count("select count(*) from {s}.test_execution where finished_at is null"
                + " and not (node = 'victim' and executed_at <= (select at from {s}.killed_at))"))
                .as("runs cut short other than the victim's, by its death").isZero();
        assertThat(jobs.deadLetters()).isZero();
        // At-least-once: a job may run twice only if the victim had started it before it died, and
        // then once more, on the survivor.
        assertThat(jobs.count("select count(*) from (select job_id from {s}.test_execution group by job_id"
                + " having count(*) > 1 and not (count(*) = 2"
                + " and bool_or(node = 'victim' and executed_at <= (select at from {s}.killed_at))"
                + " and bool_or(node = 'survivor'))) d"))
                .as("jobs run twice other than once on the victim before its death and once on the survivor").isZero();
    }

    @Test
    void aRestartedNodeReleasesItsPredecessorsLocksWithoutWaitingForExpiry() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(1000, RecordingHandler.TYPE, "20", 3);
        // An expiry far longer than the test: only the restart can bring the jobs back in time.
        Map<String, String> settings = Map.of("lockExpiry", "PT10M", "threads", "2", "queueSize", "500",
                "acquirePageSize", "250");

        try (NodeProcess first = NodeProcess.start("executor-0", schema, settings)) {
            first.awaitReady();
            Jobs.await("the node holds jobs", Duration.ofSeconds(60),
                    () -> jobs.count("select count(*) from {s}.test_execution") > 10);
            first.kill();
            jobs.execute("create table {s}.killed_at as select clock_timestamp() as at");
        }
        long stranded = jobs.count("select count(*) from {s}.job where locked_by is not null");
        assertThat(stranded).as("jobs left locked by the dead node").isPositive();
        // Nothing is charged for queueing, nor for runs the node died in: attempts count failures.
        assertThat(jobs.count("select count(*) from {s}.job where locked_by is not null and attempts = 0"))
                .isEqualTo(stranded);

        // A free presence lock proves a node gone only once live nodes had time to reconnect
        // after the server last lost its sessions (NodeSession.RECONNECTED_WITHIN): here, as far
        // as the nodes know, when the first node's session noted it keeps them (the schema is new).
        Jobs.await("the server has kept its sessions for 30 s", Duration.ofSeconds(40),
                () -> jobs.count("select (now() - greatest(pg_postmaster_start_time(),"
                        + " (select min(began_at) from {s}.server_epoch)) > interval '31 seconds')::int") == 1);
        // Same node name, as a StatefulSet pod gets when it is recreated.
        try (NodeProcess second = NodeProcess.start("executor-0", schema,
                Map.of("lockExpiry", "PT10M", "threads", "8", "queueSize", "500", "acquirePageSize", "250"))) {
            second.awaitReady();
            Jobs.await("all jobs executed well before the 10 min lock expiry", Duration.ofMinutes(2),
                    () -> jobs.jobsLeft() == 0);
            second.terminate();
        }
        assertThat(jobs.distinctExecuted()).isEqualTo(1000);
        assertThat(jobs.distinctFinished()).as("distinct jobs whose run reached its end").isEqualTo(1000);
        assertThat(jobs.count("select count(*) from {s}.test_execution where finished_at is null"
                + " and executed_at > (select at from {s}.killed_at)")).as("runs cut short after the kill").isZero();
        assertThat(jobs.count("select count(*) from (select job_id from {s}.test_execution group by job_id"
                + " having count(*) > 1 and (count(*) > 2 or min(executed_at) > (select at from {s}.killed_at))) d"))
                .as("jobs run twice whose first run had not started when the node died, or more than twice").isZero();
        assertThat(jobs.deadLetters()).isZero();
    }

    @Test
    void aLiveNodeWithTheSameNameKeepsItsJobs() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(600, RecordingHandler.TYPE, "20", 3);
        // Two clusters whose pods have the same names, sharing one schema (or an env override, or
        // a pod force-deleted while its process still runs): the second must not release the
        // first one's jobs as if they were a dead predecessor's.
        Map<String, String> settings = Map.of("lockExpiry", "PT10M", "threads", "2", "queueSize", "200",
                "acquirePageSize", "100");
        try (NodeProcess first = NodeProcess.start("executor-0", schema, settings)) {
            first.awaitReady();
            Jobs.await("the first node holds jobs", Duration.ofSeconds(60),
                    () -> jobs.count("select count(*) from {s}.test_execution") > 10);
            try (NodeProcess twin = NodeProcess.start("executor-0", schema, settings)) {
                twin.awaitReady();
                Jobs.await("all jobs executed", Duration.ofMinutes(2), () -> jobs.jobsLeft() == 0);
                assertThat(twin.output()).anyMatch(l -> l.contains("an earlier run of this node's name executor-0,"
                        + " are left to expire"));
                twin.terminate();
            }
            first.terminate();
        }
        assertThat(jobs.distinctExecuted()).isEqualTo(600);
        assertThat(jobs.executions()).as("no job ran twice").isEqualTo(600);
        assertThat(jobs.count("select count(*) from {s}.test_execution where finished_at is null")).as("runs cut short")
                .isZero();
    }
}
