package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The insert trigger (V6): a producer session notifies at most once per
 * {@link JobSql#NOTIFY_INTERVAL}, per schema, and a clock stepped back never silences it. Each
 * case sets the session's last-notified mark itself; only the silent case depends on the two
 * statements running within the interval, and it repeats a try where they did not.
 */
class NotifyTriggerTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private String schema;
    private Connection listener;
    private Connection producer;

    @BeforeEach
    void connect() throws SQLException {
        schema = TestDatabase.freshSchema(db);
        listener = db.getConnection();
        try (Statement s = listener.createStatement()) {
            s.execute("listen drover_" + schema);
        }
        producer = db.getConnection();
    }

    @AfterEach
    void close() throws SQLException {
        try (Statement s = listener.createStatement()) {
            s.execute("unlisten *");
        }
        listener.close();
        try (Statement s = producer.createStatement()) {
            s.execute("reset drover.notified");
        }
        producer.close();
    }

    @Test
    void aSessionsFirstInsertNotifies() throws SQLException {
        try (Statement s = producer.createStatement()) {
            s.execute("reset drover.notified");
        }
        insert();
        assertThat(notifications()).isEqualTo(1);
    }

    @Test
    void anInsertWithinTheIntervalOfTheSessionsLastNotificationDoesNot() throws SQLException {
        // Marked and inserted in one round trip; a try where the two statements lay further apart
        // than the interval (a descheduled process on a busy machine) proves nothing and is repeated.
        for (int attempt = 0; attempt < 20; attempt++) {
            long start = System.nanoTime();
            try (Statement s = producer.createStatement()) {
                s.execute("select set_config('drover.notified', '" + schema + " ' || (extract(epoch from clock_timestamp()) * 1000)::bigint,"
                        + " false); insert into " + schema + ".job (type, due_at) values ('noop', now() + interval '1 day')");
            }
            boolean quick = System.nanoTime() - start < JobSql.NOTIFY_INTERVAL.toNanos() / 2;
            int got = notifications();
            if (quick) {
                assertThat(got).isZero();
                return;
            }
        }
        Assumptions.abort("no try marked and inserted within " + JobSql.NOTIFY_INTERVAL.toMillis() / 2 + " ms");
    }

    @Test
    void anInsertAfterTheIntervalNotifiesAndRestartsIt() throws SQLException {
        markNotified(schema, "- " + JobSql.NOTIFY_INTERVAL.toMillis());
        long before = Long.parseLong(mark().split(" ")[1]);
        insert();
        assertThat(notifications()).isEqualTo(1);
        assertThat(mark()).startsWith(schema + " ");
        assertThat(Long.parseLong(mark().split(" ")[1])).as("the mark restarts at this notification")
                .isGreaterThanOrEqualTo(before + JobSql.NOTIFY_INTERVAL.toMillis());
    }

    @Test
    void aNotificationToAnotherSchemaDoesNotSilenceThisOne() throws SQLException {
        markNotified("some_other_schema", "");
        insert();
        assertThat(notifications()).isEqualTo(1);
    }

    @Test
    void aClockSteppedBackNeverSilencesTheSession() throws SQLException {
        markNotified(schema, "+ 500");
        insert();
        assertThat(notifications()).isEqualTo(1);
    }

    @Test
    void aMarkSetByHandNeverFailsTheInsertAndNotifies() throws SQLException {
        for (String garbage : new String[] {schema + " soon", schema + " ", schema + " -5", schema + " 99999999999999999999", " "}) {
            try (Statement s = producer.createStatement()) {
                s.execute("select set_config('drover.notified', '" + garbage + "', false)");
            }
            insert();
            assertThat(notifications()).as("after the mark '%s'", garbage).isEqualTo(1);
        }
    }

    @Test
    void theTriggersIntervalIsTheOneTheNodesWaitFor() throws SQLException {
        try (Statement s = producer.createStatement();
             ResultSet rs = s.executeQuery("select pg_get_functiondef('" + schema + ".notify_jobs_inserted'::regproc)")) {
            rs.next();
            assertThat(rs.getString(1)).contains("notify_interval_ms constant integer := " + JobSql.NOTIFY_INTERVAL.toMillis() + ";");
        }
    }

    private void markNotified(String markSchema, String offsetMillis) throws SQLException {
        try (Statement s = producer.createStatement()) {
            s.execute("select set_config('drover.notified', '" + markSchema + " ' || ((extract(epoch from clock_timestamp()) * 1000)::bigint "
                    + offsetMillis + "), false)");
        }
    }

    private String mark() throws SQLException {
        try (Statement s = producer.createStatement(); ResultSet rs = s.executeQuery("select current_setting('drover.notified')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private void insert() throws SQLException {
        try (Statement s = producer.createStatement()) {
            s.executeUpdate("insert into " + schema + ".job (type, due_at) values ('noop', now() + interval '1 day')");
        }
    }

    /** The notifications the listener has, after a round trip that delivers any sent before it. */
    private int notifications() throws SQLException {
        try (Statement s = listener.createStatement()) {
            s.execute("select 1");
        }
        PGNotification[] got = listener.unwrap(PGConnection.class).getNotifications(2000);
        return got == null ? 0 : got.length;
    }
}
