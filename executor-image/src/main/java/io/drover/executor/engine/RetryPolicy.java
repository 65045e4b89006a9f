package io.drover.executor.engine;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff: {@code retryBackoff * 2^(attempt-1)}, capped at {@code retryBackoffMax},
 * with +-20% jitter so jobs that failed together (a downstream outage) do not retry together.
 * And how long a job of a type this node cannot run is handed back for.
 */
public final class RetryPolicy {
    /**
     * A job of a type no handler here knows is handed back, due again after this delay: during a
     * rolling upgrade that adds the type, an old node may take it before a new one does.
     */
    static final Duration DEFER_DELAY = Duration.ofMinutes(1);
    /** After this many hand-backs (about an hour at {@link #DEFER_DELAY}) no node is coming that can run it. */
    static final int MAX_DEFERRALS = 60;

    private final long baseMillis;
    private final long maxMillis;

    public RetryPolicy(Duration base, Duration max) {
        this.baseMillis = base.toMillis();
        this.maxMillis = max.toMillis();
    }

    /** The delay before the retry that follows failed attempt number {@code attempt} (1-based). */
    public long delayMillis(int attempt) {
        int doublings = Math.min(Math.max(attempt - 1, 0), 40);
        double raw = Math.min((double) maxMillis, baseMillis * Math.pow(2, doublings));
        double jitter = 0.8 + 0.4 * ThreadLocalRandom.current().nextDouble();
        return Math.min(maxMillis, Math.round(raw * jitter));
    }
}
