package io.drover.bench.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Watches a drain, whichever engine runs it: polls how many seeded jobs remain until none does
 * or the timeout passes, slowly while most remain (a count over many rows) and fast near the
 * end, whose timing matters; reports the rate once a second.
 *
 * @param endNanos   System.nanoTime() when the last count was taken
 * @param remaining  jobs left then (0 unless the timeout passed)
 * @param intervals  jobs/s over each reported interval
 */
public record Drain(long endNanos, long remaining, List<Double> intervals) {
    private static final long POLL_MILLIS = 250;
    private static final long FINAL_POLL_MILLIS = 25;

    /** The seeded jobs not yet done. */
    @FunctionalInterface
    public interface Remaining {
        long count() throws Exception;
    }

    /** Told once a second (and at the end): jobs done, of total, the interval's rate, seconds since the start. */
    @FunctionalInterface
    public interface Progress {
        void report(long done, long total, double rate, double elapsedSeconds);
    }

    public static Drain watch(long startNanos, long total, Duration timeout, Remaining remaining, Progress progress)
            throws Exception {
        long deadline = startNanos + timeout.toNanos();
        List<Double> intervals = new ArrayList<>();
        long left = total;
        long lastDone = 0;
        long lastAt = startNanos;
        while (true) {
            Thread.sleep(left * 10 > total ? POLL_MILLIS : FINAL_POLL_MILLIS);
            left = remaining.count();
            long now = System.nanoTime();
            long done = total - left;
            if (now - lastAt >= 1_000_000_000L || left == 0) {
                double rate = (done - lastDone) / ((now - lastAt) / 1e9);
                intervals.add(Math.round(rate * 10) / 10.0);
                progress.report(done, total, rate, (now - startNanos) / 1e9);
                lastDone = done;
                lastAt = now;
            }
            if (left == 0 || now > deadline) {
                return new Drain(now, left, intervals);
            }
        }
    }
}
