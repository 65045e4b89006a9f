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
}
