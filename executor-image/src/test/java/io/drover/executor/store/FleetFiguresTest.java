package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.store.JobQueries.DueFigures;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** One node counts the gauges' figures per interval, the others read them (V5 fleet_figures), on a real PostgreSQL. */
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
            try (PreparedStatement ps = counting.prepareStatement(JobSql.TRY_FLEET_FIGURES_LOCK)) {
                ps.setLong(1, AdvisoryKeys.of("drover.fleet-figures:" + schema));
                ps.execute();
            }
            assertThat(nodeB.read(Duration.ZERO).backlog()).as("another node holds the count's lock").isEqualTo(1);
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
}
