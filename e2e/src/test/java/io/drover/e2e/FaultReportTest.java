package io.drover.e2e;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The reliability page's table of the cluster's fault scenarios: a scenario that failed is never left out. */
class FaultReportTest {
    private static Runs oneJobRanOnce() {
        return Runs.of(List.of(1L), Set.of(), List.of(),
                List.of(RunsTest.start(1, "ec-0", 0), RunsTest.finish(1, "ec-0", 100)), List.of());
    }

    @Test
    void aScenarioThatFailsBeforeItsRowIsWrittenAsAFailureWithItsCause() throws Exception {
        FaultReport report = new FaultReport();
        report.begin();
        report.check("evictions", "3 pods evicted", 1, oneJobRanOnce(), "fine", () -> { });
        report.failedWithoutRow("evictionsTest", new AssertionError("a failure after its row"));
        report.begin();
        report.failedWithoutRow("theDatabaseStopped", new org.awaitility.core.ConditionTimeoutException(
                "Condition with alias 'KEDA scales to 3 | nodes' didn't complete within 3 minutes\nmore"));
        report.begin();
        assertThatThrownBy(() -> report.check("oom", "heap past the limit", 1, oneJobRanOnce(), "dead-lettered",
                () -> { throw new AssertionError("no"); })).isInstanceOf(AssertionError.class);
        report.failedWithoutRow("oomTest", new AssertionError("no"));
        report.begin();
        report.failedWithoutRow("noMessage", new IllegalStateException());

        Path page = Files.createTempFile("reliability", ".md");
        Files.writeString(page, "before\n" + FaultReport.BEGIN + "\nold\n" + FaultReport.END + "\nafter\n");
        report.write(page);
        List<String> rows = Files.readAllLines(page).stream().filter(l -> l.startsWith("| ") && !l.startsWith("| scenario")).toList();
        assertThat(rows).hasSize(4);
        assertThat(rows.get(3)).isEqualTo("| noMessage | - | - | - | - | - | did not finish: IllegalStateException | **FAIL** |");
        assertThat(rows.get(0)).startsWith("| evictions |").endsWith("| pass |");
        assertThat(rows.get(1)).isEqualTo("| theDatabaseStopped | - | - | - | - | - | did not finish: Condition with alias"
                + " 'KEDA scales to 3 \\| nodes' didn't complete within 3 minutes | **FAIL** |");
        assertThat(rows.get(2)).startsWith("| oom |").endsWith("| **FAIL** |");
        assertThat(Files.readString(page)).startsWith("before\n").endsWith("after\n").doesNotContain("old");
    }
}
