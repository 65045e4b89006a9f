package io.drover.bench;

import io.drover.bench.core.BenchResult;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The SQL floor's runs in one matrix: each variant runs at each page size of the matrix's no-op
 * runs (above 1), before and after the matrix, and the better run of each stands for it, so that
 * a floor slowed by whatever else the shared cores were doing at that moment does not flatter the
 * executor's ratio. A run is compared with the floor of its own page size: a page of 512 commits
 * half as often per job as one of 256, on either side, so a floor of 256 against a run of 512
 * credited the page size to the executor.
 */
record Floors(List<SqlFloor.Result> runs) {
    static final int CLIENTS = 2;
    /** The page of the chart's floor line, and of the floor a page-1 run is set against (it has none of its own). */
    static final int PAGE = 256;

    /** The page sizes the floor runs at: those of the matrix's no-op runs, but 1 (a page-1 floor is a cycle per job). */
    static List<Integer> pages(List<Integer> matrixPages) {
        return matrixPages.stream().filter(p -> p > 1).distinct().sorted().toList();
    }

    /** The two-commit floor at {@link #PAGE}: the chart's line. */
    SqlFloor.Result fair() {
        return best("two-commit", PAGE).orElseThrow(() -> new IllegalStateException("no two-commit floor run at page " + PAGE));
    }

    /** The floor a run is set against: the two-commit floor of its page size, or of {@link #PAGE} where it has none. */
    SqlFloor.Result fairFor(int page) {
        return best("two-commit", page).orElseGet(this::fair);
    }

    Optional<SqlFloor.Result> best(String variant, int page) {
        return runs.stream().filter(r -> r.variant().equals(variant) && r.batch() == page)
                .max(Comparator.comparingDouble(SqlFloor.Result::jobsPerSecond));
    }

    /** The best run of each variant at each page size, by page. */
    List<SqlFloor.Result> bests() {
        List<SqlFloor.Result> bests = new ArrayList<>();
        runs.stream().map(SqlFloor.Result::batch).distinct().sorted().forEach(page -> {
            best("two-commit", page).ifPresent(bests::add);
            best("delete-only", page).ifPresent(bests::add);
        });
        return bests;
    }

    /** A 2-node no-op run and the floor of its page: the one of the matrix's with the best ratio to its floor. */
    record Compared(BenchResult run, SqlFloor.Result floor) {
        double ratio() {
            return run.jobsPerSecond() / floor.jobsPerSecond();
        }
    }

    /**
     * Among the 2-node no-op runs whose page size has a floor, the one with the best ratio to the
     * floor of its page; the targets and the cost table take it.
     */
    Optional<Compared> bestTwoNodeNoop(List<BenchResult> results) {
        return results.stream().filter(r -> r.kind().equals("noop") && r.nodes() == 2)
                .flatMap(r -> best("two-commit", r.acquirePageSize()).map(f -> new Compared(r, f)).stream())
                .max(Comparator.comparingDouble(Compared::ratio));
    }

    /** For local.json: the two-commit and delete-only floors at {@link #PAGE}, the best of each page, then every run. */
    Map<String, Object> json() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("twoCommit", fair());
        doc.put("deleteOnly", best("delete-only", PAGE).orElse(null));
        doc.put("bests", bests());
        doc.put("runs", runs);
        return doc;
    }

    static String line(SqlFloor.Result r) {
        return String.format("SQL floor %s, page %d (%s): %,d jobs in %.2f s = %,.0f jobs/s; plan %s; database CPU %.1f µs/job,"
                        + " %.4f commits/job, %,.0f WAL bytes/job, %,.0f jobs per database core-second", r.variant(),
                r.batch(), r.when(), r.jobs(), r.seconds(), r.jobsPerSecond(), r.plan(), r.databaseCpuMicrosPerJob(),
                r.commitsPerJob(), r.walBytesPerJob(), r.jobsPerDatabaseCoreSecond());
    }
}
