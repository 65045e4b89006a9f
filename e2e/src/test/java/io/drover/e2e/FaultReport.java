package io.drover.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * The table of FleetFaultsE2E's scenarios, written between markers into docs/reliability.md, so
 * the page's cluster figures are always those of the last `make e2e`.
 */
final class FaultReport {
    static final String BEGIN = "<!-- e2e-faults:begin (written by make e2e; do not edit by hand) -->";
    static final String END = "<!-- e2e-faults:end -->";

    record Row(String scenario, String fault, int jobs, Runs runs, String measured, boolean passed) {
        String markdown() {
            return "| " + scenario + " | " + fault + " | " + jobs + " | " + runs.lost().size() + " | "
                    + runs.interrupted().size() + " | " + runs.ranTwice().size() + " | " + measured + " | "
                    + (passed ? "pass" : "**FAIL**") + " |";
        }
    }

    /** The table's rows, in markdown. */
    private final List<String> rows = new ArrayList<>();
    /** The current test recorded its row. */
    private boolean checked;

    /** A test begins: it has no row yet. */
    void begin() {
        checked = false;
    }

    /** Runs the scenario's assertions and records its row, passed or not. */
    void check(String scenario, String fault, int jobs, Runs runs, String measured, Runnable assertions) {
        boolean passed = false;
        try {
            assertions.run();
            passed = true;
        } finally {
            add(new Row(scenario, fault, jobs, runs, measured, passed).markdown());
            checked = true;
        }
    }

    /**
     * A test failed before its row: a wait that timed out, a fault that could not be made. The
     * table says so, rather than leaving the scenario out of a page that would then show only passes.
     * (A test that fails after its row, in its clean-up, keeps the row its checks earned.)
     */
    void failedWithoutRow(String test, Throwable cause) {
        if (checked) {
            return;
        }
        String why = java.util.Optional.ofNullable(cause.getMessage()).flatMap(m -> m.lines().findFirst())
                .filter(l -> !l.isBlank()).orElse(cause.getClass().getSimpleName());
        why = why.replace("|", "\\|");
        add("| " + test + " | - | - | - | - | - | did not finish: " + (why.length() > 200 ? why.substring(0, 200) + "..." : why)
                + " | **FAIL** |");
        checked = true;
    }

    private void add(String row) {
        rows.add(row);
        Kube.log(row);
    }

    void write(Path page) throws Exception {
        if (rows.isEmpty() || !Files.exists(page)) {
            return;
        }
        StringBuilder t = new StringBuilder(BEGIN).append('\n');
        t.append("Measured by `make e2e` on ").append(LocalDate.now()).append(" on the local single-node cluster (2 cores):"
                + " lockExpiry 10s, 2 threads and queueSize 2 per node, every job a `chaos` job reporting its start and finish.\n\n");
        t.append("| scenario | fault | jobs | lost | cut short | run twice | measured | result |\n");
        t.append("|---|---|---|---|---|---|---|---|\n");
        rows.forEach(r -> t.append(r).append('\n'));
        t.append(END);
        String text = Files.readString(page);
        int b = text.indexOf(BEGIN);
        int e = text.indexOf(END);
        if (b >= 0 && e > b) {
            Files.writeString(page, text.substring(0, b) + t + text.substring(e + END.length()));
        }
    }
}
