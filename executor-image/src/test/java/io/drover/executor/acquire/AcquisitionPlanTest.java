package io.drover.executor.acquire;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.store.IndexPlans;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The acquisition statements of every lock mode read the backlog through job_acquire_idx in
 * order, stop after the page, and update the rows found by address (TID scan): no sort, no
 * sequential scan, no walk of an index per row, on a large backlog. Checked as they run (plans
 * pinned by IndexPlans, in the same request, as the acquisition sends them) right after a burst of inserts before any ANALYZE, after one, and after
 * a burst into a table whose statistics say the acquisition index is empty (autovacuum visited
 * while every job was held): there, the update's lookup by id chose job_acquire_idx, walking it
 * whole for the page, and a 400,000-job backlog drained at 4,300 instead of 20,000-35,000
 * jobs/s until autovacuum ran again (the in-cluster benchmark's "slowdown that ends with
 * autovacuum"). A
 * plan-shape check, not a timing: the benchmark caught each of these plans at 30-100 jobs/s
 * where ~900 were expected. The statements that
 * run unpinned and read the index too (the acquirer's next-due peek, the gauges' due figures)
 * are checked as they run, unpinned.
 */
class AcquisitionPlanTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    /** What the planner knows of the job table when a burst of 100,000 jobs arrives. */
    enum Statistics {
        /** Never analyzed. */
        NONE,
        /** Analyzed after the burst. */
        CURRENT,
        /**
         * Vacuumed and analyzed while every job was held, before the burst: they say
         * job_acquire_idx is empty (its predicate is "unlocked") and the table is not.
         */
        INDEX_EMPTY_WHEN_VACUUMED
    }

    @ParameterizedTest
    @EnumSource(Statistics.class)
    void acquisitionReadsTheOrderedIndexAndUpdatesWhereTheRowsAre(Statistics statistics) throws Exception {
        String schema = TestDatabase.freshSchema(db);
        JobSql sql = new JobSql(new Tables(schema));
        boolean analyzed = statistics != Statistics.NONE;
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            if (statistics == Statistics.INDEX_EMPTY_WHEN_VACUUMED) {
                s.execute("insert into " + schema + ".job (type, locked_by, lock_expires_at) select 'noop', 'n:0',"
                        + " now() + interval '1 hour' from generate_series(1, 100000)");
                s.execute("vacuum analyze " + schema + ".job");
            }
            s.execute("insert into " + schema + ".job (type, due_at) select 'noop', now() - (g % 1000) * interval '1 s'"
                    + " from generate_series(1, 100000) g");
            if (statistics == Statistics.CURRENT) {
                s.execute("analyze " + schema + ".job");
            }
        }
        for (int page : new int[] {1, 256, 512}) {
            // parameters in statement order: page size, owner, lock expiry (ms)
            String skipLocked = bind(sql.lockPage(true), page, "'n:1'", 60000);
            String global = bind(sql.lockPage(false), page, "'n:1'", 60000);
            String optimistic = bind(sql.selectCandidates(), page);
            // The same, leaving out rows the database refused to lock (the ids first).
            String leftOut = "'{1,2,3}'::bigint[]";
            String skipLockedLeavingOut = bind(sql.lockPageLeavingOut(true), leftOut, page, "'n:1'", 60000);
            String globalLeavingOut = bind(sql.lockPageLeavingOut(false), leftOut, page, "'n:1'", 60000);
            String optimisticLeavingOut = bind(sql.selectCandidatesLeavingOut(), leftOut, page);
            for (String statement : List.of(skipLocked, global, optimistic, skipLockedLeavingOut, globalLeavingOut,
                    optimisticLeavingOut)) {
                assertThat(plan(statement, true)).as("page " + page + ", statistics " + statistics + ": " + statement)
                        .containsPattern("Index (Only )?Scan using job_acquire_idx")
                        .doesNotContain("Sort").doesNotContain("Seq Scan");
            }
            // Global's check that the request took the lock is a constant of the statement:
            // evaluated once, before the scan, not per row.
            assertThat(plan(global, true)).as("page " + page + ", statistics " + statistics + ": the lock's gate")
                    .contains("One-Time Filter: (current_setting('drover.global_acquire_lock_taken'");
            for (String locking : List.of(skipLocked, global, skipLockedLeavingOut, globalLeavingOut)) {
                String plan = plan(locking, true);
                assertThat(plan).as("page " + page + ", statistics " + statistics + ": the index read once, for the page")
                        .containsOnlyOnce("job_acquire_idx");
                assertThat(plan).as("page " + page + ", statistics " + statistics + ": the page's rows by address")
                        .contains("Tid Scan on job j");
            }
        }
        // Optimistic, step 2 (unpinned): one candidate claimed at its address, not looked up in an index.
        String claim = bind(sql.claimCandidate(), "'n:1'", 60000, "'(0,1)'", 1, 0);
        assertThat(plan(claim, false)).as("statistics " + statistics + ": " + claim)
                .contains("Tid Scan on job").doesNotContain("job_acquire_idx").doesNotContain("Seq Scan");
        // The idle acquirer's peek: min(due_at) is the index's first entry.
        assertThat(plan(sql.nextDue(), false)).as("analyzed " + analyzed)
                .contains("Index Only Scan using job_acquire_idx").doesNotContain("Seq Scan");
        // Leaving out refused rows, the index is walked in order and the ids filtered on the way.
        assertThat(plan(bind(sql.nextDueLeavingOut(), "'{1,2,3}'::bigint[]"), false)).as("analyzed " + analyzed)
                .containsPattern("Index (Only )?Scan using job_acquire_idx").doesNotContain("Seq Scan");
        // The search for refused rows locks its halves by id, pinned as it runs: the primary key,
        // never the due index nor a scan of the table, for a half of a large page too.
        for (int size : new int[] {3, 512, 50_000}) {
            String ids = java.util.stream.LongStream.rangeClosed(1, size).mapToObj(Long::toString)
                    .collect(java.util.stream.Collectors.joining(",", "'{", "}'::bigint[]"));
            String plan = plan(bind(sql.lockListed(), "'n:1'", 60000, ids), true);
            assertThat(plan).as("statistics " + statistics + ", " + size + " ids: lockListed")
                    .contains("job_pkey").contains("Tid Scan on job j").doesNotContain("job_acquire_idx")
                    .doesNotContain("Seq Scan");
        }
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

    /**
     * @param pinned as the acquisition runs it: the pin in the same request ({@link IndexPlans#pinned}),
     *               in auto-commit mode, so the test also proves the pin reaches the statement
     */
    private static String plan(String sql, boolean pinned) throws Exception {
        List<String> lines = new ArrayList<>();
        String explain = "explain (costs off) " + sql;
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement(pinned ? IndexPlans.pinned(explain) : explain);
             ResultSet rs = pinned ? IndexPlans.executeQuery(ps) : ps.executeQuery()) {
            assertThat(c.getAutoCommit()).isTrue();
            while (rs.next()) {
                lines.add(rs.getString(1));
            }
        }
        return String.join("\n", lines);
    }
}
