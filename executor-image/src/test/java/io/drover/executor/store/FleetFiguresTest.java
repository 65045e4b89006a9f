package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.store.FleetFigures.DueFigures;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The gauges' figures (drover_due_backlog, drover_due_lag_seconds, drover_dead_letters): what they
 * count, and one node counting them per interval while the others read them (V5 fleet_figures),
 * on a real PostgreSQL.
 */
class FleetFiguresTest {
    private static final Duration LONG = Duration.ofHours(1);

    private final AgroalDataSource db = TestDatabase.sharedPool();
    private String schema;
    private FleetFigures nodeA;
    private FleetFigures nodeB;

    @BeforeEach
    void freshSchema() {
        schema = TestDatabase.freshSchema(db);
        nodeA = new FleetFigures(db, new Tables(schema));
        nodeB = new FleetFigures(db, new Tables(schema));
    }

    @Test
    void countsTheDueBacklogMeasuresTheOldestDueJobAndCountsDeadLetters() throws Exception {
        assertThat(nodeA.read(Duration.ZERO)).isEqualTo(new DueFigures(0, 0, 0));
        try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
            st.execute("insert into " + schema + ".job (type, payload, due_at) values"
                    + " ('a', '', now() - interval '90 seconds'), ('a', '', now() - interval '10 seconds'),"
                    + " ('a', '', now() + interval '1 hour')");
            // Held by a node: neither backlog nor lag (it is being worked on).
            st.execute("insert into " + schema + ".job (type, payload, due_at, locked_by, lock_expires_at)"
                    + " values ('a', '', now() - interval '1 hour', 'n:1', now() + interval '1 minute')");
            st.execute("insert into " + schema + ".dead_letter (id, type, payload, due_at, attempts, max_attempts, error, created_at)"
                    + " values (1000001, 'a', '', now(), 3, 3, 'boom', now())");
        }
        DueFigures due = nodeA.read(Duration.ZERO);
        assertThat(due.backlog()).isEqualTo(2);
        assertThat(due.oldestLagSeconds()).isCloseTo(90, within(5.0));
        assertThat(due.deadLetters()).isEqualTo(1);
    }

    @Test
    void theFirstReadCountsAndOtherNodesReuseTheCountWhileItIsFresh() throws Exception {
        insertDue(3);
        assertThat(nodeA.read(LONG).backlog()).isEqualTo(3);
        insertDue(2);
        assertThat(nodeB.read(LONG).backlog()).as("node B reads node A's count: it is fresh").isEqualTo(3);
        assertThat(nodeB.read(Duration.ZERO).backlog()).as("stale: node B counts").isEqualTo(5);
        insertDue(1);
        assertThat(nodeA.read(LONG).backlog()).as("and node A reads B's count").isEqualTo(5);
    }

    @Test
    void aNodeThatFindsAnotherCountingUsesTheLastCount() throws Exception {
        insertDue(1);
        nodeA.read(LONG);
        insertDue(4);
        try (Connection counting = db.getConnection()) {
            counting.setAutoCommit(false);
            try (PreparedStatement ps = counting.prepareStatement("select pg_advisory_xact_lock(?)")) {
                ps.setLong(1, AdvisoryKeys.of("drover.fleet-figures:" + schema));
                ps.execute();
            }
            assertThat(nodeB.read(LONG).backlog()).as("fresh: the stored count").isEqualTo(1);
            Thread.sleep(1000);
            assertThat(nodeB.read(Duration.ofMillis(700)).backlog())
                    .as("stale, within 3 intervals, another node holds the count's lock: the stored count").isEqualTo(1);
            assertThat(nodeB.read(Duration.ofMillis(10)).backlog())
                    .as("older than 3 intervals while another node holds the lock: counted here, not stored").isEqualTo(5);
            counting.rollback();
        }
        assertThat(nodeB.read(Duration.ZERO).backlog()).isEqualTo(5);
    }

    @Test
    void theLagIsTakenAtReadTimeFromTheOldestDueJob() throws Exception {
        try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
            st.execute("insert into " + schema + ".job (type, payload, due_at) values ('a', '', now() - interval '90 seconds')");
        }
        DueFigures first = nodeA.read(LONG);
        Thread.sleep(1100);
        DueFigures later = nodeB.read(LONG);
        assertThat(later.backlog()).isEqualTo(first.backlog());
        assertThat(later.oldestLagSeconds()).as("the shared row keeps the oldest due time, not a lag frozen at the count")
                .isGreaterThan(first.oldestLagSeconds() + 1);
    }

    private void insertDue(int n) throws SQLException {
        try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
            st.execute("insert into " + schema + ".job (type, payload, due_at) select 'a', '', now() - interval '1 second'"
                    + " from generate_series(1, " + n + ")");
        }
    }

    @Test
    void withNoStoredRowAndTheLockTakenANodeCountsForItself() throws Exception {
        insertDue(2);
        try (Connection counting = db.getConnection()) {
            counting.setAutoCommit(false);
            try (PreparedStatement ps = counting.prepareStatement("select pg_advisory_xact_lock(?)")) {
                ps.setLong(1, AdvisoryKeys.of("drover.fleet-figures:" + schema));
                ps.execute();
            }
            assertThat(nodeA.read(LONG).backlog()).as("no row (first count, or the database crashed)").isEqualTo(2);
            counting.rollback();
        }
        try (Connection c = db.getConnection(); Statement st = c.createStatement();
             var rs = st.executeQuery("select count(*) from " + schema + ".fleet_figures")) {
            rs.next();
            assertThat(rs.getLong(1)).as("a count without the lock is not stored").isZero();
        }
    }
}
