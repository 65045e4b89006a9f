package io.drover.e2e;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Which duplicates a kill explains: the accounting every fault scenario of the e2e suite asserts on. */
class RunsTest {
    static final Instant T = Instant.parse("2026-11-26T00:40:00Z");
    /** ec-1 killed: the kill sent at T + 10 s, the command returned 300 ms later. */
    static final List<Runs.Kill> KILL = List.of(new Runs.Kill("ec-1", T.plusMillis(10_000), T.plusMillis(10_300)));

    /** A report from the node's first JVM (ec-1's is the one killed). */
    static ExecutionReceiver.Event start(long job, String node, long ms) {
        return event("start", job, node, node + "-a", ms);
    }

    static ExecutionReceiver.Event finish(long job, String node, long ms) {
        return event("finish", job, node, node + "-a", ms);
    }

    static ExecutionReceiver.Event event(String kind, long job, String node, String jvm, long ms) {
        return new ExecutionReceiver.Event(kind, job, node, 1, T.plusMillis(ms), jvm);
    }

    static List<Long> unexplained(ExecutionReceiver.Event... events) {
        return Runs.of(List.of(1L), Set.of(), List.of(), List.of(events), KILL).ranTwiceUnexplained();
    }

    @Test
    void aJobTheKilledJvmWasRunningMayRunAgain() {
        // Its start arrived after the kill was sent (before the command returned, or up to 1 s
        // after: reports arrive late), or long before and it was still running.
        for (long first : new long[] {10_200, 11_300, 2_000}) {
            Runs runs = Runs.of(List.of(1L), Set.of(), List.of(),
                    List.of(start(1, "ec-1", first), start(1, "ec-0", 15_000), finish(1, "ec-0", 15_500)), KILL);
            assertThat(runs.ranTwice()).containsExactly(1L);
            assertThat(runs.ranTwiceUnexplained()).as("first start at %d ms", first).isEmpty();
            assertThat(runs.lost()).isEmpty();
            assertThat(runs.toString()).contains("1: [ec-1/ec-1-a " + T.plusMillis(first) + ", ec-0/ec-0-a " + T.plusMillis(15_000) + "]");
            assertThat(runs.duplicates("as it died")).isEqualTo("run twice: [1], as it died");
        }
        // It finished on the victim just before the kill, its outcome not written yet.
        assertThat(unexplained(start(1, "ec-1", 9_000), finish(1, "ec-1", 9_500), start(1, "ec-0", 15_000),
                finish(1, "ec-0", 15_500))).isEmpty();
        // The victim's next container (another JVM, same pod name) runs it again.
        assertThat(unexplained(start(1, "ec-1", 9_000), event("start", 1, "ec-1", "ec-1-b", 12_700),
                event("finish", 1, "ec-1", "ec-1-b", 13_000))).isEmpty();
        // A handler without JVM tokens: judged by the first start's arrival.
        assertThat(unexplained(event("start", 1, "ec-1", null, 11_300), event("start", 1, "ec-0", null, 15_000))).isEmpty();
    }

    @Test
    void noOtherDuplicateIsExplained() {
        // First run on a survivor.
        assertThat(unexplained(start(1, "ec-0", 9_000), start(1, "ec-0", 15_000), finish(1, "ec-0", 15_500))).containsExactly(1L);
        // First run by the victim's next container, however soon it started (its JVM reports on).
        assertThat(unexplained(event("start", 1, "ec-1", "ec-1-b", 10_900), event("start", 1, "ec-0", "ec-0-a", 25_000),
                event("finish", 2, "ec-1", "ec-1-b", 30_000))).containsExactly(1L);
        // First start reported more than 1 s after the kill returned, by a JVM that reported nothing else.
        assertThat(unexplained(start(1, "ec-1", 11_400), start(1, "ec-0", 16_000), finish(1, "ec-0", 16_500))).containsExactly(1L);
        assertThat(unexplained(event("start", 1, "ec-1", null, 11_400), event("start", 1, "ec-0", null, 15_000)))
                .containsExactly(1L);
        // The victim finished it long before the kill: its outcome was written, nothing may rerun it.
        assertThat(unexplained(start(1, "ec-1", 2_000), finish(1, "ec-1", 2_100), start(1, "ec-0", 15_000),
                finish(1, "ec-0", 15_500))).containsExactly(1L);
        // A survivor started it while the victim still lived and held it.
        assertThat(unexplained(start(1, "ec-1", 9_000), start(1, "ec-0", 9_500), finish(1, "ec-0", 10_000))).containsExactly(1L);
        // Three runs: the kill explains one more, not two.
        assertThat(unexplained(start(1, "ec-1", 9_000), start(1, "ec-0", 15_000), start(1, "ec-2", 16_000),
                finish(1, "ec-2", 16_500))).containsExactly(1L);
        // Without a kill, every duplicate is unexplained.
        Runs none = Runs.of(List.of(1L), Set.of(), List.of(), List.of(start(1, "ec-1", 0), start(1, "ec-0", 1)), List.of());
        assertThat(none.ranTwiceUnexplained()).containsExactly(1L);
        assertThat(none.duplicates("as it died")).isEqualTo("run twice: [1], [1] not explained by a kill");
    }

    @Test
    void aJobWithoutAFinishIsLostUnlessDeadLettered() {
        Runs runs = Runs.of(List.of(1L, 2L), Set.of(), List.of(2L), List.of(start(1, "ec-0", 0), start(2, "ec-0", 0)), List.of());
        assertThat(runs.lost()).containsExactly(1L);
        assertThat(runs.interrupted()).containsExactly(1L, 2L);
        assertThat(runs.duplicates("")).isEqualTo("none run twice");
    }
}
