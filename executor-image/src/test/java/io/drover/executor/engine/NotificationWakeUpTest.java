package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.RecordingHandler;
import io.drover.executor.testing.TestDatabase;
import io.drover.executor.testing.TestNode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An idle node starts a new job at once, however it was inserted, instead of at its next poll:
 * acquireInterval here is a minute, so only the notification can explain a prompt start.
 */
class NotificationWakeUpTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @Test
    void insertsByAnyProducerWakeIdleNodesAndTheListenerSurvivesAConnectionLoss() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.acquireInterval(Duration.ofMinutes(1)),
                List.of(new RecordingHandler(db, schema, "in-jvm")))) {
            Thread.sleep(1500); // the node is idle now, waiting up to a minute

            insertWithPlainSql(schema);
            Jobs.await("job inserted by plain SQL started promptly", Duration.ofSeconds(10), () -> jobs.executions() == 1);

            // The listener's connection dies (failover, idle-connection reaper): it must come back.
            // Found by its last statement: its LISTEN, its note of the server's epoch, or its ping.
            JobSql sql = new JobSql(new Tables(schema));
            assertThat(jobs.count("select count(*) from (select pg_terminate_backend(pid) from pg_stat_activity"
                    + " where query in ('" + sql.listen() + "', '" + sql.noteServerEpoch().replace("'", "''") + "', '"
                    + JobSql.PING_READ_ONLY.replace("'", "''") + "')) t")).as("listener backends terminated").isEqualTo(1);
            Thread.sleep(1500);
            insertWithPlainSql(schema);
            Jobs.await("job started promptly after the listener reconnected", Duration.ofSeconds(10),
                    () -> jobs.executions() == 2);
        }
        assertThat(jobs.count("select (extract(epoch from max(executed_at - due_at)) * 1000)::bigint"
                + " from {s}.test_execution")).as("worst start delay, ms (poll interval is 60,000)").isLessThan(10_000);
    }

    /**
     * A producer session notifies at most once per {@code JobSql.NOTIFY_INTERVAL}: a job it
     * commits a few milliseconds after a notified one has no notification of its own, and comes
     * after the woken node's acquisition and its peek at the next due job. The node's second look
     * after a woken cycle must find it (without that look it waited for the poll, a minute here).
     */
    @Test
    void aJobRightAfterANotifiedOneStartsPromptlyWithoutANotificationOfItsOwn() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        int pairs = 5;
        int silent = 0;
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.acquireInterval(Duration.ofMinutes(1)),
                List.of(new RecordingHandler(db, schema, "in-jvm")))) {
            Thread.sleep(1500); // idle, waiting up to a minute
            try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
                for (int i = 0; i < pairs; i++) {
                    s.executeUpdate("insert into " + schema + ".job (type) values ('record')"); // notifies
                    String mark = notifiedMark(s);
                    Thread.sleep(JobSql.NOTIFY_INTERVAL.toMillis() / 2);
                    s.executeUpdate("insert into " + schema + ".job (type) values ('record')"); // within the interval: silent
                    if (notifiedMark(s).equals(mark)) {
                        silent++; // (on a busy machine the sleep can outlast the interval: then it notified)
                    }
                    Thread.sleep(300);
                }
            }
            Jobs.await("every pair started", Duration.ofSeconds(20), () -> jobs.executions() == 2 * pairs);
        }
        assertThat(jobs.count("select (extract(epoch from max(executed_at - due_at)) * 1000)::bigint"
                + " from {s}.test_execution")).as("worst start delay, ms (poll interval is 60,000)").isLessThan(10_000);
        Assumptions.assumeTrue(silent > 0, "no second insert fell within the interval: the silent path did not run");
    }

    /** The session's last-notified mark, which the trigger rewrites whenever it notifies. */
    private static String notifiedMark(Statement s) throws Exception {
        try (var rs = s.executeQuery("select current_setting('drover.notified', true)")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void insertWithPlainSql(String schema) throws Exception {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate("insert into " + schema + ".job (type) values ('record')");
        }
    }
}
