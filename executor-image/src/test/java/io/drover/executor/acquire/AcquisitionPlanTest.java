package io.drover.executor.acquire;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The acquisition statements of every lock mode read the backlog through job_acquire_idx in
 * order and stop after the page: no sort, no sequential scan, however large the backlog.
 * A plan-shape check, not a timing: a sort here once cost the Optimistic mode 95% of its
 * throughput on a 100,000-job backlog.
 */
class AcquisitionPlanTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @Test
    void acquisitionUsesTheOrderedIndexWithoutSorting() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Tables tables = new Tables(schema);
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("insert into " + schema + ".job (type, due_at) select 'noop', now() - (g % 1000) * interval '1 s'"
                    + " from generate_series(1, 50000) g");
            s.execute("analyze " + schema + ".job");
        }
        List<String> statements = List.of(
                new PageLocker(tables, "n:1", Duration.ofMinutes(1), true).sql,
                new PageLocker(tables, "n:1", Duration.ofMinutes(1), false).sql,
                new OptimisticAcquisition(tables, "n:1", Duration.ofMinutes(1),
                        new ExecutorMetrics(new SimpleMeterRegistry())).selectCandidates);
        for (String sql : statements) {
            String plan = plan(sql);
            assertThat(plan).as(sql).containsPattern("Index (Only )?Scan using job_acquire_idx").doesNotContain("Sort")
                    .doesNotContain("Seq Scan");
        }
    }

    /** EXPLAIN (GENERIC_PLAN) of a statement with JDBC '?' parameters. */
    private static String plan(String sql) throws Exception {
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char ch : sql.toCharArray()) {
            numbered.append(ch == '?' ? "$" + (++n) : String.valueOf(ch));
        }
        List<String> lines = new ArrayList<>();
        // Simple query protocol: the $n parameters stay unbound, as GENERIC_PLAN wants.
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl() + "&preferQueryMode=simple", "postgres", "postgres");
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("explain (generic_plan, costs off) " + numbered)) {
            while (rs.next()) {
                lines.add(rs.getString(1));
            }
        }
        return String.join("\n", lines);
    }
}
