package io.drover.flowable.engine;

import java.time.Duration;

/**
 * When the database last answered one of the node's own calls (the readiness check's connection
 * check, which the kubelet makes every few seconds, and the lock renewal). Liveness reads it to
 * tell a stuck acquisition loop from a database that answers nobody: Flowable's loops block in a
 * socket read for as long as a frozen or black-holed database keeps silent (up to the
 * connections' socketTimeout, 300 s), and restarting the node would not bring the database back.
 */
public final class DatabaseAnswers {
    private volatile long lastAnswerNanos;
    private volatile boolean everAnswered;

    /** The database answered a call of this node just now. */
    public void answered() {
        lastAnswerNanos = System.nanoTime();
        everAnswered = true;
    }

    /** True if the database answered a call of this node within the last {@code window}. */
    public boolean answeredWithin(Duration window) {
        return everAnswered && System.nanoTime() - lastAnswerNanos <= window.toNanos();
    }
}
