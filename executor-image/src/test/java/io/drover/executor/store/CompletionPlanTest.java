package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.TestDatabase;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

/**
 * Every statement that writes or reads a batch of this node's jobs by id finds them through the
 * primary key, whatever the statistics say. On statistics taken while no job was held (the
 * usual case: analyzed after a burst arrived, before any node took it) the planner counted
 * job_lock_expiry_idx, partial on held rows, as nearly empty and chose to walk it whole for
 * each batch, filtering by id: every held row read for every batch of outcomes (measured here:
 * 20,000 held rows; a node once held 224,628, docs/benchmarks). Checked as the custom plan and
 * as the generic plan PostgreSQL switches to for a server-prepared statement. A plan-shape
 * check, not a timing.
 */
class CompletionPlanTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private static final String OWNER = "'n:1'";
    private static String schema;
    private static JobSql sql;
    private static String ids;

    @BeforeAll
    static void heldJobsUnknownToTheStatistics() throws Exception {
        schema = TestDatabase.freshSchema(db);
        sql = new JobSql(new Tables(schema));
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("alter table " + schema + ".job set (autovacuum_enabled = false)");
            s.execute("insert into " + schema + ".job (type, due_at, repeat_interval) select 'noop', now(),"
                    + " case when g % 2 = 0 then interval '1 minute' end from generate_series(1, 100000) g");
            s.execute("analyze " + schema + ".job");
            s.execute("update " + schema + ".job set locked_by = " + OWNER + ", lock_expires_at = now() + interval"
                    + " '1 minute' where id in (select id from " + schema + ".job order by id limit 20000)");
        }
        ids = LongStream.rangeClosed(1001, 1256).mapToObj(Long::toString).collect(Collectors.joining(",", "'{", "}'"));
    }

    /** A statement with its parameters' types (for PREPARE) and values (SQL literals), in order. */
    private record Batch(String name, String sql, List<String> types, List<String> values) {
    }

    private static List<Batch> batches() {
        String errors = "'{" + "e,".repeat(255) + "e}'";
        String numbers = "'{" + "0,".repeat(255) + "0}'";
        return List.of(
                new Batch("markStarted", sql.markStarted(), List.of("int", "bigint[]", "text"), List.of("60000", ids, OWNER)),
                new Batch("readPayloads", sql.readPayloads(), List.of("bigint[]", "text"), List.of(ids, OWNER)),
                new Batch("deleteDone", sql.deleteDone(), List.of("bigint[]", "text"), List.of(ids, OWNER)),
                new Batch("nextSlot", sql.nextSlot(), List.of("bigint[]", "int[]", "text"), List.of(ids, numbers, OWNER)),
                new Batch("nextSlotFailed", sql.nextSlotFailed(), List.of("bigint[]", "int[]", "text[]", "int[]", "text"),
                        List.of(ids, numbers, errors, numbers, OWNER)),
                new Batch("retry", sql.retry(), List.of("bigint[]", "int[]", "bigint[]", "text[]", "int[]", "text"),
                        List.of(ids, numbers, numbers, errors, numbers, OWNER)),
                new Batch("defer", sql.defer(), List.of("bigint[]", "int[]", "bigint[]", "text[]", "int[]", "text"),
                        List.of(ids, numbers, numbers, errors, numbers, OWNER)),
                new Batch("deadLetter", sql.deadLetter(), List.of("bigint[]", "int[]", "text[]", "int[]", "text"),
                        List.of(ids, numbers, errors, numbers, OWNER)),
                new Batch("renewLocks", sql.renewLocks(), List.of("int", "bigint[]", "text"), List.of("60000", ids, OWNER)),
                new Batch("releaseUnstarted", sql.releaseUnstarted(), List.of("bigint[]", "text"), List.of(ids, OWNER)),
                new Batch("readClaimed", sql.readClaimed(), List.of("bigint[]", "text"), List.of(ids, OWNER)));
    }

    @ParameterizedTest(name = "generic plan: {0}")
    @ValueSource(booleans = {false, true})
    void batchesOfThisNodesJobsAreFoundByPrimaryKey(boolean generic) throws Exception {
        SoftAssertions soft = new SoftAssertions();
        for (Batch b : batches()) {
            String plan = plan(b, generic);
            soft.assertThat(plan).as(b.name() + (generic ? " (generic plan)" : "") + ": " + b.sql())
                    .contains("job_pkey").doesNotContain("job_lock_expiry_idx").doesNotContain("Seq Scan on job");
        }
        soft.assertAll();
    }

    private static String plan(Batch b, boolean generic) throws Exception {
        List<String> lines = new ArrayList<>();
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("set local search_path = " + schema);
                s.execute("set local plan_cache_mode = " + (generic ? "force_generic_plan" : "force_custom_plan"));
                s.execute("prepare batch(" + String.join(", ", b.types()) + ") as " + numbered(b.sql()));
                try (ResultSet rs = s.executeQuery("explain (costs off) execute batch(" + String.join(", ", b.values())
                        + ")")) {
                    while (rs.next()) {
                        lines.add(rs.getString(1));
                    }
                }
            } finally {
                c.rollback();
                try (Statement s = c.createStatement()) {
                    s.execute("deallocate all");
                }
                c.setAutoCommit(true);
            }
        }
        return String.join("\n", lines);
    }

    /** JDBC's '?' parameters as $1, $2, ... (no statement here has a '?' in a literal). */
    private static String numbered(String jdbc) {
        StringBuilder out = new StringBuilder();
        int n = 0;
        for (char ch : jdbc.toCharArray()) {
            out.append(ch == '?' ? "$" + ++n : String.valueOf(ch));
        }
        return out.toString();
    }
}
