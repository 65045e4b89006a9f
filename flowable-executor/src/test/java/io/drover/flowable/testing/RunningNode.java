package io.drover.flowable.testing;

import io.drover.flowable.engine.FlowableNode;
import org.flowable.engine.ProcessEngine;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The wait of every test on the running node: its engine, once the node has reached RUNNING. */
public final class RunningNode {
    private static final Duration START = Duration.ofMinutes(1);

    private RunningNode() {
    }

    /** The node's engine, after waiting for it to run; fails naming what the node still waits for. */
    public static ProcessEngine engine(FlowableNode node) throws InterruptedException {
        Instant deadline = Instant.now().plus(START);
        while (node.state() != FlowableNode.State.RUNNING && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
        }
        assertThat(node.state()).as("node state (waiting for: " + node.waitingFor() + ")")
                .isEqualTo(FlowableNode.State.RUNNING);
        return node.engine();
    }
}
