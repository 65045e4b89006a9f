package io.drover.chaos;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Which duplicates a node fault explains: what every scenario of the campaign is judged by. */
class AccountingTest {
    static final long S = 1_000_000_000L;
    /** node-1 faulted from 10 s to 11 s; it could not tell for 1 s. */
    static final Accounting.Fault FAULT = new Accounting.Fault(10 * S, 11 * S, "node-1", S);

    static Receiver.Event start(String node, double seconds) {
        return new Receiver.Event("start", 1, node, 1, (long) (seconds * S));
    }

    static Receiver.Event finish(String node, double seconds) {
        return new Receiver.Event("finish", 1, node, 1, (long) (seconds * S));
    }

    static List<Long> unexplained(Receiver.Event... events) {
        return Accounting.of(List.of(1L), Map.of(), Map.of(), Set.of(), List.of(events), FAULT).unexplainedDuplicates();
    }

    @Test
    void aJobTheFaultedNodeWasRunningMayRunAgainOnce() {
        assertThat(unexplained(start("node-1", 9.5), start("node-0", 25), finish("node-0", 25.1))).isEmpty();
        assertThat(unexplained(start("node-1", 10.5), start("node-0", 25), finish("node-0", 25.1)))
                .as("started within the detection window").isEmpty();
        assertThat(unexplained(start("node-1", 9), finish("node-1", 9.1), start("node-0", 25), finish("node-0", 25.1)))
                .as("finished just before the fault, its outcome not yet written").isEmpty();
    }

    @Test
    void runsGoByTheirStampsNotTheOrderTheirReportsArrived() {
        // node-1 was frozen while its start report was on its way: the report arrived after node-0's
        assertThat(unexplained(start("node-0", 25), finish("node-0", 25.1), start("node-1", 9.5), finish("node-1", 9.6)))
                .isEmpty();
        assertThat(unexplained(start("node-0", 25), start("node-1", 5), finish("node-0", 25.1), finish("node-1", 5.1)))
                .as("its outcome was written long before, whatever came first").containsExactly(1L);
    }

    @Test
    void noOtherDuplicateIsExplained() {
        assertThat(unexplained(start("node-0", 9), start("node-0", 25), finish("node-0", 25.1))).as("first run elsewhere")
                .containsExactly(1L);
        assertThat(unexplained(start("node-1", 11.5), start("node-0", 25), finish("node-0", 25.1)))
                .as("first run after the detection window").containsExactly(1L);
        assertThat(unexplained(start("node-1", 5), finish("node-1", 5.1), start("node-0", 25), finish("node-0", 25.1)))
                .as("its outcome was written long before").containsExactly(1L);
        assertThat(unexplained(start("node-1", 8), start("node-0", 9), finish("node-0", 9.1)))
                .as("taken over before the fault, while the node held it").containsExactly(1L);
        assertThat(unexplained(start("node-1", 9), start("node-0", 25), start("node-2", 30), finish("node-2", 30.1)))
                .as("three runs").containsExactly(1L);
        assertThat(Accounting.of(List.of(1L), Map.of(), Map.of(), Set.of(), List.of(start("node-1", 9), start("node-0", 25),
                finish("node-0", 25.1)), new Accounting.Fault(10 * S, 11 * S, Accounting.NO_NODE, 0)).unexplainedDuplicates())
                .as("a fault of the database alone").containsExactly(1L);
    }

    static Receiver.Event event(String kind, long job, String node, double seconds) {
        return new Receiver.Event(kind, job, node, 1, (long) (seconds * S));
    }

    @Test
    void jobsGoByIdFromTheirFinishes() {
        Accounting a = Accounting.of(List.of(1L, 2L, 3L, 4L, 5L), Map.of(), Map.of(4L, "boom"), Set.of(5L), List.of(
                event("start", 1, "node-0", 1), event("finish", 1, "node-0", 1.1),
                event("start", 2, "node-1", 9.5),
                event("start", 4, "node-0", 3), event("finish", 4, "node-0", 3.1),
                event("start", 5, "node-0", 2), event("finish", 5, "node-0", 2.1)), FAULT);
        assertThat(a.lost()).as("started and never finished; never started").containsExactly(2L, 3L);
        assertThat(a.deadWithoutRun()).as("an ordinary job dead-lettered, counted there and not as lost").containsExactly(4L);
        assertThat(a.left()).as("finished, yet still in the table").containsExactly(5L);
        assertThat(a.duplicates()).isEmpty();
        assertThat(a.passed()).isFalse();
    }

    @Test
    void everyJobFinishedOnceAndGonePasses() {
        Accounting a = Accounting.of(List.of(1L, 2L), Map.of(), Map.of(), Set.of(), List.of(
                event("start", 1, "node-0", 1), event("finish", 1, "node-0", 1.1),
                event("start", 2, "node-1", 12), event("finish", 2, "node-1", 12.1)), FAULT);
        assertThat(a.passed()).isTrue();
        assertThat(a.startedDuringFault()).isEmpty();
    }

    @Test
    void poisonMustBeDeadLetteredWithItsReason() {
        Map<Long, java.util.function.Predicate<String>> poison = new java.util.LinkedHashMap<>();
        poison.put(7L, e -> e.startsWith("poison:"));
        poison.put(8L, e -> e.startsWith("payload is too large"));
        poison.put(9L, e -> true);
        Accounting a = Accounting.of(List.of(), poison, Map.of(7L, "poison: 3 executor nodes died while running it",
                8L, "dueAt is out of range: 1700-01-01T00:00:00Z\nmore"), Set.of(), List.of(), FAULT);
        assertThat(a.wrongPoisonReasons()).as("by id, with the first line of the reason found")
                .containsExactly("8: dueAt is out of range: 1700-01-01T00:00:00Z", "9: not dead-lettered");
        assertThat(a.passed()).isFalse();
    }
}
