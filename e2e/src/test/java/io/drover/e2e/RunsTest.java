package io.drover.e2e;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Which duplicates a kill explains: the accounting every fault scenario of the e2e suite asserts on. */
class RunsTest {
    static final Instant T = Instant.parse("2026-11-26T00:40:00Z");

    static ExecutionReceiver.Event start(long job, String node, long ms) {
        return new ExecutionReceiver.Event("start", job, node, 1, T.plusMillis(ms));
    }

    static ExecutionReceiver.Event finish(long job, String node, long ms) {
        return new ExecutionReceiver.Event("finish", job, node, 1, T.plusMillis(ms));
    }

    @Test
    void aDuplicateFirstStartedOnTheVictimWhileTheKillWasOnItsWayIsExplained() {
        Runs.Kill kill = new Runs.Kill("ec-1", T.plusMillis(300));
        // Job 1: its start arrived 200 ms after the kill was sent, before the command returned;
        // job 2's arrived 500 ms after it returned, sent before the kill landed.
        Runs runs = Runs.of(List.of(1L, 2L), Set.of(), List.of(), List.of(start(1, "ec-1", 200), start(2, "ec-1", 800),
                start(1, "ec-0", 5_000), finish(1, "ec-0", 5_500), start(2, "ec-0", 5_000), finish(2, "ec-0", 5_500)), kill);
        assertThat(runs.ranTwice()).containsExactly(1L, 2L);
        assertThat(runs.ranTwiceUnexplained()).isEmpty();
        assertThat(runs.lost()).isEmpty();
        assertThat(runs.toString()).contains("1: [ec-1 " + T.plusMillis(200) + ", ec-0 " + T.plusMillis(5_000) + "]");
    }

    @Test
    void aDuplicateFirstStartedOnAnotherNodeOrAfterTheKillIsNot() {
        Runs.Kill kill = new Runs.Kill("ec-1", T.plusMillis(300));
        Runs runs = Runs.of(List.of(1L, 2L, 3L), Set.of(), List.of(), List.of(
                start(1, "ec-0", 100), start(1, "ec-0", 900), finish(1, "ec-0", 1_000),     // a survivor ran it twice
                start(2, "ec-1", 1_400), start(2, "ec-1", 9_000), finish(2, "ec-1", 9_500), // past the report latency
                start(3, "ec-1", 100), finish(3, "ec-1", 150)), kill);
        assertThat(runs.ranTwiceUnexplained()).containsExactly(1L, 2L);
        assertThat(Runs.of(List.of(1L), Set.of(), List.of(), List.of(start(1, "ec-1", 0), start(1, "ec-0", 1)), null)
                .ranTwiceUnexplained()).as("no kill explains nothing").containsExactly(1L);
    }

    @Test
    void aJobWithoutAFinishIsLostUnlessDeadLettered() {
        Runs runs = Runs.of(List.of(1L, 2L), Set.of(), List.of(2L), List.of(start(1, "ec-0", 0), start(2, "ec-0", 0)), null);
        assertThat(runs.lost()).containsExactly(1L);
        assertThat(runs.interrupted()).containsExactly(1L, 2L);
    }
}
