package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.GlobalLockHolder;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.NodeProcess;
import io.drover.executor.testing.RecordingHandler;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Global mode: a holder of the acquire lock that crashes or hangs does not stop the fleet. */
class GlobalLockRecoveryTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @Test
    void fleetContinuesWhenTheLockHolderCrashes() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        // A holder of the lock in an open transaction, with a max hold long enough that only the crash frees it.
        Connection holder = DriverManager.getConnection(TestDatabase.jdbcUrl(), "postgres", "postgres");
        holder.setAutoCommit(false);
        assertThat(GlobalLockHolder.take(holder, schema, Duration.ofHours(1))).isTrue();
        int holderPid = backendPid(holder);

        jobs.enqueue(2000, RecordingHandler.TYPE, "", 3);
        List<NodeProcess> nodes = startNodes(schema);
        try {
            Thread.sleep(2000);
            assertThat(jobs.jobsLeft()).as("nothing acquired while the lock is held").isEqualTo(2000);
            // The holder's process dies: its connection drops, which frees the advisory lock.
            jobs.count("select count(*) from (select pg_terminate_backend(" + holderPid + ")) t");
            Jobs.await("all jobs executed after the holder crashed", Duration.ofMinutes(1), () -> jobs.jobsLeft() == 0);
        } finally {
            stopAll(nodes);
            holder.close();
        }
        assertThat(jobs.deadLetters()).isZero();
        assertThat(jobs.distinctFinished()).as("jobs run to their end").isEqualTo(2000);
        assertThat(jobs.executions()).as("runs (no node died: each job once)").isEqualTo(2000);
    }

    @Test
    void serverEndsAHolderThatHangsPastGlobalLockMaxHold() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        Connection holder = DriverManager.getConnection(TestDatabase.jdbcUrl(), "postgres", "postgres");
        holder.setAutoCommit(false);
        // Takes the lock then goes silent (a frozen process): nothing on the client side frees it.
        assertThat(GlobalLockHolder.take(holder, schema, Duration.ofSeconds(3))).isTrue();

        jobs.enqueue(2000, RecordingHandler.TYPE, "", 3);
        List<NodeProcess> nodes = startNodes(schema);
        try {
            Jobs.await("all jobs executed after the server ended the hung holder", Duration.ofMinutes(1),
                    () -> jobs.jobsLeft() == 0);
            assertThat(holder.isValid(2)).as("hung holder's session was terminated by the server").isFalse();
        } finally {
            stopAll(nodes);
            holder.close();
        }
        assertThat(jobs.deadLetters()).isZero();
        assertThat(jobs.distinctFinished()).as("jobs run to their end").isEqualTo(2000);
        assertThat(jobs.executions()).as("runs (no node died: each job once)").isEqualTo(2000);
    }

    private static List<NodeProcess> startNodes(String schema) throws Exception {
        List<NodeProcess> nodes = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            nodes.add(NodeProcess.start("global-" + i, schema,
                    Map.of("lockMode", "Global", "threads", "4", "queueSize", "256", "acquirePageSize", "128")));
        }
        for (NodeProcess node : nodes) {
            node.awaitReady();
        }
        return nodes;
    }

    private static void stopAll(List<NodeProcess> nodes) throws InterruptedException {
        for (NodeProcess node : nodes) {
            node.close();
        }
    }

    private static int backendPid(Connection c) throws Exception {
        try (var s = c.createStatement(); var rs = s.executeQuery("select pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
