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

    /**
     * No retry is put further ahead than a due date may be ({@link io.drover.executor.store.JobLimits#LATEST_DUE_AHEAD}):
     * retryBackoffMax may be set up to 2562047h, and now() plus that passes PostgreSQL's last
     * timestamp (year 294276): the retry's write failed, and the job was dead-lettered with
     * attempts left.
     */
    static final long LONGEST_DELAY_MILLIS = io.drover.executor.store.JobLimits.LATEST_DUE_AHEAD.toMillis();

    public RetryPolicy(Duration base, Duration max) {
        this.baseMillis = Math.min(base.toMillis(), LONGEST_DELAY_MILLIS);
        this.maxMillis = Math.min(max.toMillis(), LONGEST_DELAY_MILLIS);
    }

    /** The delay before the retry that follows failed attempt number {@code attempt} (1-based). */
    public long delayMillis(int attempt) {
        int doublings = Math.min(Math.max(attempt - 1, 0), 40);
        double raw = Math.min((double) maxMillis, baseMillis * Math.pow(2, doublings));
        double jitter = 0.8 + 0.4 * ThreadLocalRandom.current().nextDouble();
        return Math.min(maxMillis, Math.round(raw * jitter));
    }
}
