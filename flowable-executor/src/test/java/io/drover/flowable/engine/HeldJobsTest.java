package io.drover.flowable.engine;

import io.drover.flowable.testing.EmbeddedPostgres;
import io.drover.flowable.testing.RunningNode;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.flowable.engine.ProcessEngine;
import org.flowable.job.service.impl.persistence.entity.JobEntityImpl;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a node holds, on a real PostgreSQL: lock renewal extends the locks of the jobs it holds
 * (and the process instance locks of its exclusive ones), and no others; a stopping node hands
 * back the jobs it holds queued, starts none of them, and lets the one running finish. One
 * thread, so that jobs queue; a schema of its own, so that what is handed back here is no other
 * test's work. The stop is the last test: it ends this node.
 */
@QuarkusTest
@WithTestResource(HeldJobsTest.OneThread.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HeldJobsTest {
    private static final String SCHEMA = "flowable_held";
    private static final String OWNER = "flowable-held-0";

    /** The shared PostgreSQL, with this test's node: one thread, a schema and a name of its own. */
    public static class OneThread extends EmbeddedPostgres {
        @Override
        public Map<String, String> start() {
            Map<String, String> settings = new HashMap<>(super.start());
            settings.put("drover.schema", SCHEMA);
            settings.put("drover.nodeName", OWNER);
            settings.put("drover.threads", "1");
            settings.put("drover.lockExpiry", "20s");
            return settings;
        }
    }

    @Inject
    FlowableNode node;

    /**
     * Rows locked in this node's name that no thread of it holds (as a run leaves its row when its
     * failure cannot be written while the database is away) are left to lapse, and Flowable's
     * sweep hands them on; renewing every row of the node's name kept them locked, and unrun, for
     * as long as the node lived. The rows here are written by hand, locked a minute ahead, so no
     * node acquires or sweeps them meanwhile.
     */
    @Test
    @Order(1)
    void renewalExtendsTheLocksOfHeldJobsAndTheirExclusiveInstancesOnly() throws Exception {
        RunningNode.engine(node);
        Timestamp soon = Timestamp.from(Instant.now().plusSeconds(60).truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
        execute("insert into " + SCHEMA + ".act_ru_execution (id_, rev_, lock_time_, lock_owner_) values"
                + " ('held-instance', 1, '" + soon + "', '" + OWNER + "'), ('orphan-instance', 1, '" + soon + "', '" + OWNER + "')");
        execute("insert into " + SCHEMA + ".act_ru_job (id_, rev_, type_, lock_exp_time_, lock_owner_, exclusive_, process_instance_id_)"
                + " values ('held-job', 1, 'message', '" + soon + "', '" + OWNER + "', true, 'held-instance'),"
                + " ('orphan-job', 1, 'message', '" + soon + "', '" + OWNER + "', true, 'orphan-instance')");
        try {
            HeldJobs held = new HeldJobs(Duration.ofMinutes(10));
            JobEntityImpl job = new JobEntityImpl();
            job.setId("held-job");
            held.hold(job, () -> { }).taken();
            DatabaseAnswers answers = new DatabaseAnswers();
            try (LockRenewal renewal = new LockRenewal(EmbeddedPostgres.server().getPostgresDatabase(), SCHEMA, OWNER,
                    Duration.ofMinutes(10), held, answers)) {
                assertThat(renewal.renew()).as("job locks renewed").isEqualTo(1);
            }
            assertThat(answers.answeredWithin(Duration.ofMinutes(1))).as("the renewal's answer, recorded for liveness").isTrue();
            Timestamp renewedAtLeast = Timestamp.from(Instant.now().plus(Duration.ofMinutes(9)));
            assertThat(timestamp("select lock_exp_time_ from " + SCHEMA + ".act_ru_job where id_ = 'held-job'"))
                    .isAfter(renewedAtLeast);
            assertThat(timestamp("select lock_time_ from " + SCHEMA + ".act_ru_execution where id_ = 'held-instance'"))
                    .isAfter(renewedAtLeast);
            assertThat(timestamp("select lock_exp_time_ from " + SCHEMA + ".act_ru_job where id_ = 'orphan-job'").getTime())
                    .as("a row this node does not hold").isEqualTo(soon.getTime());
            assertThat(timestamp("select lock_time_ from " + SCHEMA + ".act_ru_execution where id_ = 'orphan-instance'").getTime())
                    .isEqualTo(soon.getTime());
        } finally {
            execute("delete from " + SCHEMA + ".act_ru_job where id_ in ('held-job', 'orphan-job')");
            execute("delete from " + SCHEMA + ".act_ru_execution where id_ in ('held-instance', 'orphan-instance')");
        }
    }

    /**
     * Six jobs of 5 s on one thread: one runs, the others wait in the queue. Stopping, the node hands
     * those back at once (unlocked, for another node) and lets the running one finish, even while
     * Flowable's own shutdown waits for its acquisition loops. Before, it ran the whole queue within
     * shutdownGracePeriod, and jobs started after the stop began were killed with the pod and ran
     * again elsewhere.
     */
    @Test
    @Order(2)
    void aStoppingNodeHandsBackItsQueuedJobsAndFinishesTheRunningOne() throws Exception {
        ProcessEngine engine = RunningNode.engine(node);
        for (int i = 0; i < 6; i++) {
            engine.getRuntimeService().startProcessInstanceByKey("asyncSleep", Map.of("ms", 5000));
        }
        Instant deadline = Instant.now().plusSeconds(30);
        while (count("select count(*) from " + SCHEMA + ".act_ru_job where lock_owner_ = '" + OWNER + "'") < 6
                && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
        }
        assertThat(count("select count(*) from " + SCHEMA + ".act_ru_job where lock_owner_ = '" + OWNER + "'"))
                .as("jobs this node acquired").isEqualTo(6);
        // Another node holds Flowable's global acquire locks: this node's acquisition loops wait for
        // them (globalLockWaitTime, 10 s), and Flowable's shutdown waits for its loops. The pool
        // went on starting queued jobs meanwhile, after the stop had begun.
        execute("update " + SCHEMA + ".act_ge_property set value_ = '" + Instant.now() + " - another-node'"
                + " where name_ in ('acquireAsyncJobsLock', 'acquireTimerJobsLock')");
        Thread.sleep(1000);
        long left = count("select count(*) from " + SCHEMA + ".act_ru_job");
        assertThat(left).as("jobs not run yet: one running, the others queued").isGreaterThanOrEqualTo(3);

        node.stop(null);
        assertThat(count("select count(*) from " + SCHEMA + ".act_ru_job")).as("jobs left to run: all but the one running")
                .isEqualTo(left - 1);
        assertThat(count("select count(*) from " + SCHEMA + ".act_ru_job where lock_owner_ is not null"))
                .as("jobs left locked").isZero();
    }

    private static void execute(String sql) throws Exception {
        try (Connection c = EmbeddedPostgres.server().getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static long count(String sql) throws Exception {
        try (Connection c = EmbeddedPostgres.server().getPostgresDatabase().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Timestamp timestamp(String sql) throws Exception {
        try (Connection c = EmbeddedPostgres.server().getPostgresDatabase().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getTimestamp(1);
        }
    }
}
