package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The gauges' query (drover_due_backlog, drover_due_lag_seconds, drover_dead_letters) on a real PostgreSQL. */
class DueFiguresTest {
    private final AgroalDataSource db = TestDatabase.sharedPool();

    @Test
    void countsTheDueBacklogMeasuresTheOldestDueJobAndCountsDeadLetters() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        JobQueries queries = new JobQueries(db, new Tables(schema));
        assertThat(queries.dueFigures()).isEqualTo(new JobQueries.DueFigures(0, 0, 0));

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
        JobQueries.DueFigures due = queries.dueFigures();
        assertThat(due.backlog()).isEqualTo(2);
        assertThat(due.oldestLagSeconds()).isCloseTo(90, within(5.0));
        assertThat(due.deadLetters()).isEqualTo(1);
    }
}
