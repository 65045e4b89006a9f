package io.drover.executor.acquire;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.IndexPlans;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The acquisition statements of every lock mode read the backlog through job_acquire_idx in
 * order, stop after the page, and update by primary key: no sort, no sequential scan, on a
 * large backlog. Checked as they run (plans pinned by IndexPlans), right after a burst of
 * inserts before any ANALYZE, and after one. A plan-shape check, not a timing: the benchmark
 * caught each of these plans at 30-100 jobs/s where ~900 were expected.
 */
class AcquisitionPlanTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void acquisitionReadsTheOrderedIndexAndUpdatesByKey(boolean analyzed) throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Tables tables = new Tables(schema);
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("insert into " + schema + ".job (type, due_at) select 'noop', now() - (g % 1000) * interval '1 s'"
                    + " from generate_series(1, 100000) g");
            if (analyzed) {
                s.execute("analyze " + schema + ".job");
            }
        }
        for (int page : new int[] {1, 256, 512}) {
            // parameters in statement order: page size, owner, lock expiry (ms)
            String skipLocked = bind(new PageLocker(tables, "n:1", Duration.ofMinutes(1), true).sql, page, "'n:1'", 60000);
            String global = bind(new PageLocker(tables, "n:1", Duration.ofMinutes(1), false).sql, page, "'n:1'", 60000);
            String optimistic = bind(new OptimisticAcquisition(tables, "n:1", Duration.ofMinutes(1),
                    new ExecutorMetrics(new SimpleMeterRegistry())).selectCandidates, page);
            for (String sql : List.of(skipLocked, global, optimistic)) {
                assertThat(plan(sql)).as("page " + page + ", analyzed " + analyzed + ": " + sql)
                        .containsPattern("Index (Only )?Scan using job_acquire_idx")
                        .doesNotContain("Sort").doesNotContain("Seq Scan");
            }
            assertThat(plan(skipLocked)).contains("Index Scan using job_pkey");
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

    private static String plan(String sql) throws Exception {
        List<String> lines = new ArrayList<>();
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            IndexPlans.pin(c);
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
