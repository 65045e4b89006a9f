package io.drover.flowable.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** FlowableBench's command line and kinds, without a database (the in-cluster run is make bench-engines). */
class FlowableBenchTest {
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return new CommandLine(new FlowableBench()).setErr(new PrintWriter(err)).setOut(new PrintWriter(new StringWriter()))
                .execute(args);
    }

    @Test
    void kindsAreSpelledAsDroversBenchSpellsThem() {
        assertThat(BenchKind.parse("noop").processKey()).isEqualTo("asyncNoop");
        assertThat(BenchKind.parse("sleep:100").variables(Instant.EPOCH)).containsEntry("ms", 100);
        assertThat(BenchKind.parse("sleep:100").theoreticalMaxPerSecond(2, 8)).isEqualTo(160.0);
        assertThat(BenchKind.parse("noop").theoreticalMaxPerSecond(2, 8)).isNaN();
        // a seeded timer is parked a day ahead until the release makes them all due at once
        assertThat(BenchKind.parse("timer").variables(Instant.EPOCH)).containsEntry("dueAt", "1970-01-02T00:00:00Z");
        for (String bad : new String[] {"sleep:0", "sleep:x", "noops", ""}) {
            assertThatThrownBy(() -> BenchKind.parse(bad)).hasMessageContaining("--kind must be noop, sleep:<ms> (ms > 0) or timer");
        }
    }

    @Test
    void badOptionsAreUsageErrorsNamingTheOption() {
        assertThat(run("run", "--jdbc-url=jdbc:postgresql://nowhere/x", "--lockMode=SkipLocked")).isEqualTo(2);
        assertThat(err.toString()).contains("--lockMode must be Global or Optimistic (Flowable has no SkipLocked)");
        assertThat(run("run", "--jdbc-url=jdbc:postgresql://nowhere/x", "--timeout=soon")).isEqualTo(2);
        assertThat(err.toString()).contains("'soon' is not a duration");
        assertThat(run("run", "--jdbc-url=jdbc:postgresql://nowhere/x", "--jobz=5")).isEqualTo(2);
        assertThat(err.toString()).contains("--jobz");
        assertThat(run("run", "--jdbc-url=jdbc:postgresql://nowhere/x", "--kind=sleep:0")).isEqualTo(2);
        assertThat(err.toString()).contains("--kind must be noop, sleep:<ms> (ms > 0) or timer, got 'sleep:0'");
        assertThat(run("run")).isEqualTo(2);
        assertThat(err.toString()).contains("--jdbc-url");
    }
}
