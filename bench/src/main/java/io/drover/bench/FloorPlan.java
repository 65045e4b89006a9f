package io.drover.bench;

import io.drover.executor.store.IndexPlans;
import io.drover.contract.JobSchema;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The plans of the floor's statements. The executor pins its acquisition to job_acquire_idx
 * ({@link IndexPlans}: planner switches set for the transaction), because PostgreSQL's own
 * choice can be a hash join over a scan of the whole table, even on an analyzed one (measured
 * on 20,000 rows). pgbench's sessions get the same switches, read back from the server after
 * IndexPlans set them, so the floor follows the executor's pin without a copy of it; EXPLAIN
 * (nothing run) under them must show the page taken through the acquisition index and no seq
 * scan of the job table, or the floor fails: it would measure a plan no node runs.
 */
final class FloorPlan {
    private static final Pattern INDEX = Pattern.compile("(?:Index Scan|Index Only Scan)(?: Backward)? using (\\S+) on"
            + "|Bitmap Index Scan on (\\S+)");
    private static final Pattern SEQ_SCAN_OF_JOBS = Pattern.compile("Seq Scan on " + JobSchema.JOB_TABLE + "\\b");

    private FloorPlan() {
    }

    /**
     * The indexes each statement walks, statements separated by "; " (e.g. "job_acquire_idx,
     * job_pkey; job_lock_expiry_idx"). The first statement is the one that takes the page.
     */
    static String check(DataSource ds, List<String> statements) throws SQLException {
        List<String> walked = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            IndexPlans.pin(c);
            for (String statement : statements) {
                String plan = explain(s, statement);
                if (SEQ_SCAN_OF_JOBS.matcher(plan).find()
                        || walked.isEmpty() && !indexes(plan).contains(JobSchema.ACQUIRE_INDEX)) {
                    throw new IllegalStateException("the SQL floor would not take jobs as the executor does (through "
                            + JobSchema.ACQUIRE_INDEX + ", no seq scan):\n" + statement + "\n" + plan);
                }
                walked.add(String.join(", ", indexes(plan)));
            }
            c.rollback();
        }
        return String.join("; ", walked);
    }

    /**
     * The executor's plan pin as server options for pgbench ({@code PGOPTIONS}), e.g.
     * {@code -c enable_seqscan=off}: the settings IndexPlans changes in a transaction.
     */
    static String executorPinOptions(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            Map<String, String> unpinned = settings(c);
            IndexPlans.pin(c);
            String options = settings(c).entrySet().stream()
                    .filter(e -> !e.getValue().equals(unpinned.get(e.getKey())))
                    .map(e -> "-c " + e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
            c.rollback();
            return options;
        }
    }

    private static Map<String, String> settings(Connection c) throws SQLException {
        Map<String, String> settings = new TreeMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select name, setting from pg_settings")) {
            while (rs.next()) {
                settings.put(rs.getString(1), rs.getString(2));
            }
        }
        return settings;
    }

    private static String explain(Statement s, String statement) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = s.executeQuery("explain " + statement)) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }

    /** The indexes a text plan walks, in plan order, each once. */
    static List<String> indexes(String plan) {
        List<String> names = new ArrayList<>();
        Matcher m = INDEX.matcher(plan);
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            if (!names.contains(name)) {
                names.add(name);
            }
        }
        return names;
    }
}
