package io.drover.executor.acquire;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.store.IndexPlans;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The acquisition statements of every lock mode read the backlog through job_acquire_idx in
 * order, stop after the page, and update by primary key: no sort, no sequential scan, on a
 * large backlog. Checked as they run (plans pinned by IndexPlans), right after a burst of
 * inserts before any ANALYZE, and after one. A plan-shape check, not a timing: the benchmark
 * caught each of these plans at 30-100 jobs/s where ~900 were expected. The statements that
 * run unpinned and read the index too (the acquirer's next-due peek, the gauges' due figures)
 * are checked as they run, unpinned.
 */
class AcquisitionPlanTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void acquisitionReadsTheOrderedIndexAndUpdatesByKey(boolean analyzed) throws Exception {
        String schema = TestDatabase.freshSchema(db);
        JobSql sql = new JobSql(new Tables(schema));
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("insert into " + schema + ".job (type, due_at) select 'noop', now() - (g % 1000) * interval '1 s'"
                    + " from generate_series(1, 100000) g");
            if (analyzed) {
                s.execute("analyze " + schema + ".job");
            }
        }
        for (int page : new int[] {1, 256, 512}) {
            // parameters in statement order: page size, owner, lock expiry (ms)
            String skipLocked = bind(sql.lockPage(true), page, "'n:1'", 60000);
            String global = bind(sql.lockPage(false), page, "'n:1'", 60000);
            String optimistic = bind(sql.selectCandidates(), page);
            for (String statement : List.of(skipLocked, global, optimistic)) {
                assertThat(plan(statement, true)).as("page " + page + ", analyzed " + analyzed + ": " + statement)
                        .containsPattern("Index (Only )?Scan using job_acquire_idx")
                        .doesNotContain("Sort").doesNotContain("Seq Scan");
            }
            assertThat(plan(skipLocked, true)).contains("Index Scan using job_pkey");
        }
        // The idle acquirer's peek: min(due_at) is the index's first entry.
        assertThat(plan(sql.nextDue(), false)).as("analyzed " + analyzed)
                .contains("Index Only Scan using job_acquire_idx").doesNotContain("Seq Scan");
    }

    /**
     * The gauges' due count and oldest due job (drover_due_backlog, drover_due_lag_seconds) read
     * the index where it matters: on a table of future timers and held jobs with a few due.
     * (When nearly every row is due, the planner rightly counts them with a sequential scan.)
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void dueFiguresReadTheDueJobsThroughTheIndex(boolean analyzed) throws Exception {
        String schema = TestDatabase.freshSchema(db);
        JobSql sql = new JobSql(new Tables(schema));
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("insert into " + schema + ".job (type, due_at) select 'noop', case when g % 100 = 0"
                    + " then now() - (g % 1000) * interval '1 s' else now() + g * interval '1 s' end"
                    + " from generate_series(1, 100000) g");
            s.execute("insert into " + schema + ".job (type, due_at, locked_by, lock_expires_at) select 'noop',"
                    + " now() - interval '1 hour', 'n:1', now() + interval '1 hour' from generate_series(1, 50000)");
            if (analyzed) {
                s.execute("analyze " + schema + ".job");
            }
        }
        for (String counting : List.of(sql.countFleetFigures(), sql.countAndStoreFleetFigures())) {
            assertThat(plan(counting, false)).as("analyzed " + analyzed + ": the count, then the oldest: " + counting)
                    .containsPattern("(?s)Index.*job_acquire_idx.*Index.*job_acquire_idx").doesNotContain("Seq Scan on job");
        }
    }

    /** The statement with its JDBC '?' parameters replaced by literals, in order. */
    private static String bind(String sql, Object... values) {
        StringBuilder out = new StringBuilder();
        int n = 0;
        for (char ch : sql.toCharArray()) {
            out.append(ch == '?' ? String.valueOf(values[n++]) : String.valueOf(ch));
        }
        assertThat(n).as("parameters bound").isEqualTo(values.length);
        return out.toString();
    }

    /** @param pinned as in the acquisition's transaction ({@link IndexPlans}) */
    private static String plan(String sql, boolean pinned) throws Exception {
        List<String> lines = new ArrayList<>();
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            if (pinned) {
                IndexPlans.pin(c);
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("explain (costs off) " + sql)) {
                while (rs.next()) {
                    lines.add(rs.getString(1));
                }
            }
            c.rollback();
            c.setAutoCommit(true);
        }
        return String.join("\n", lines);
    }
}
