package io.drover.bench;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL floor's runs in one matrix: each variant runs before and after the matrix, and the
 * better run of each stands for it, so that a floor slowed by whatever else the shared cores
 * were doing at that moment does not flatter the executor's ratio.
 */
record Floors(List<SqlFloor.Result> runs) {
    static final int CLIENTS = 2;
    static final int PAGE = 256;

    /** The floor the targets and the ratios use: the executor's own work per page. */
    SqlFloor.Result fair() {
        return best("two-commit");
    }

    SqlFloor.Result best(String variant) {
        return runs.stream().filter(r -> r.variant().equals(variant))
                .max(Comparator.comparingDouble(SqlFloor.Result::jobsPerSecond))
                .orElseThrow(() -> new IllegalStateException("no " + variant + " floor run"));
    }

    List<SqlFloor.Result> bests() {
        return List.of(best("two-commit"), best("delete-only"));
    }

    /** For local.json: the best of each variant, then every run. */
    Map<String, Object> json() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("twoCommit", best("two-commit"));
        doc.put("deleteOnly", best("delete-only"));
        doc.put("runs", runs);
        return doc;
    }

    static String line(SqlFloor.Result r) {
        return String.format("SQL floor %s (%s): %,d jobs in %.2f s = %,.0f jobs/s; plan %s; database CPU %.1f µs/job,"
                        + " %.4f commits/job, %,.0f WAL bytes/job, %,.0f jobs per database core-second", r.variant(),
                r.when(), r.jobs(), r.seconds(), r.jobsPerSecond(), r.plan(), r.databaseCpuMicrosPerJob(),
                r.commitsPerJob(), r.walBytesPerJob(), r.jobsPerDatabaseCoreSecond());
    }
}
