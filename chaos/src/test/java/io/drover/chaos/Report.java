package io.drover.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;

/**
 * The campaign's table, written between markers into docs/reliability.md (so the page's
 * figures are always the last run's) and into the work directory.
 */
final class Report {
    static final String BEGIN = "<!-- chaos:begin (written by make chaos; do not edit by hand) -->";
    static final String END = "<!-- chaos:end -->";

    /**
     * @param failedCheck the first of the scenario's own checks that failed after its accounting
     *                    (the fault seen to take effect, the poison jobs' runs), or null: the row
     *                    is written before them, and must not say "pass" for a scenario that failed
     */
    record Row(String scenario, String fault, String lockMode, int jobs, Accounting a, int restarts,
               Duration faultLasted, Duration recovered, boolean nodesFine, String failedCheck) {
        Row(String scenario, String fault, String lockMode, int jobs, Accounting a, int restarts,
            Duration faultLasted, Duration recovered, boolean nodesFine) {
            this(scenario, fault, lockMode, jobs, a, restarts, faultLasted, recovered, nodesFine, null);
        }

        Row failing(String check) {
            return new Row(scenario, fault, lockMode, jobs, a, restarts, faultLasted, recovered, nodesFine,
                    check.lines().findFirst().orElse(check));
        }

        String markdown() {
            return "| " + scenario + " | " + fault + " | " + lockMode + " | " + jobs + " | " + a.lost().size()
                    + " | " + a.deadWithoutRun().size() + " | " + duplicates() + " | "
                    + (a.expectedDeadLetters() == 0 ? "-" : (a.expectedDeadLetters() - a.wrongPoisonReasons().size())
                    + " of " + a.expectedDeadLetters() + " with the right reason") + " | " + restarts + " | "
                    + seconds(recovered) + " | " + (nodesFine ? "yes" : "**no**") + " | "
                    + (a.passed() && nodesFine && failedCheck == null ? "pass"
                    : "**FAIL**" + (failedCheck == null ? "" : " (" + failedCheck.replace("|", "/") + ")")) + " |";
        }

        private String duplicates() {
            if (a.duplicates().isEmpty()) {
                return "0";
            }
            String ids = a.duplicates().size() <= 8 ? " (ids " + a.duplicates() + ")" : "";
            String during = a.startedDuringFault().isEmpty() ? ""
                    : " (" + a.startedDuringFault().size() + " of them after it began, before the node could tell)";
            return a.duplicates().size() + ids + (a.unexplainedDuplicates().isEmpty()
                    ? ", all started on the faulted node before the fault" + during
                    : ", **" + a.unexplainedDuplicates().size() + " not explained by the fault**");
        }
    }

    private static String seconds(Duration d) {
        return String.format("%.1f s", d.toMillis() / 1000.0);
    }

    static void write(List<Row> rows, Path page, Path copy) throws Exception {
        StringBuilder t = new StringBuilder();
        t.append(BEGIN).append('\n');
        t.append("Measured by `make chaos` on ").append(LocalDate.now()).append(", revision ")
                .append(revision()).append(", on a 2-core machine of our kind: 3 nodes per scenario (6 for the two")
                .append(" clusters), threads 4, queueSize 200, acquirePageSize 100, lockExpiry 10s, ")
                .append(ChaosCampaignIT.JOBS).append(" jobs of ").append(ChaosCampaignIT.JOB_MILLIS)
                .append(" ms each (1,000 beside the poison).\n\n");
        t.append("| scenario | fault | lockMode | jobs | lost | dead-lettered without running | run twice | poison |")
                .append(" node restarts | drained after the fault in | nodes ready, fresh jobs drain | result |\n");
        t.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Row r : rows) {
            t.append(r.markdown()).append('\n');
        }
        t.append(END);
        Files.createDirectories(copy.getParent());
        Files.writeString(copy, t + "\n");
        if (Files.exists(page)) {
            String text = Files.readString(page);
            int b = text.indexOf(BEGIN);
            int e = text.indexOf(END);
            if (b >= 0 && e > b) {
                Files.writeString(page, text.substring(0, b) + t + text.substring(e + END.length()));
            }
        }
    }

    private static String revision() {
        try {
            Process p = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            return p.waitFor() == 0 ? out : "unknown";
        } catch (Exception e) {
            return "unknown";
        }
    }
}
