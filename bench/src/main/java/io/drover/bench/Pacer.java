package io.drover.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * When each of a stream of independent arrivals is sent: a Poisson process at the given mean
 * rate (exponential gaps), as requests from many application threads arrive, and open-loop (the
 * schedule is fixed in advance, so a slow insert delays only itself). Evenly spaced arrivals
 * were tried first: at 1 job/s they keep the same phase against the nodes' 1 s poll, so every
 * job waited about the same time and the figure was that phase, not a distribution. The seed is
 * fixed, so every run sends the same schedule.
 */
final class Pacer {
    static final long SEED = 20L;

    private final long[] offsets;

    Pacer(double perSecond, double seconds) {
        this(perSecond, seconds, new Random(SEED));
    }

    Pacer(double perSecond, double seconds, Random random) {
        if (!(perSecond > 0) || !(seconds > 0)) {
            throw new IllegalArgumentException("rate and duration must be positive: " + perSecond + "/s, " + seconds + " s");
        }
        List<Long> list = new ArrayList<>();
        double at = 0;
        long end = Math.round(seconds * 1e9);
        while (true) {
            list.add(Math.round(at));
            // Exponential gap of mean 1/rate: 1 - nextDouble() is in (0, 1], so the log is finite.
            at += -Math.log(1 - random.nextDouble()) / perSecond * 1e9;
            if (at >= end) {
                break;
            }
        }
        offsets = list.stream().mapToLong(Long::longValue).toArray();
    }

    /** How many arrivals fall in the duration (the first is at once, so at least one). */
    int arrivals() {
        return offsets.length;
    }

    /** Nanoseconds after the start at which arrival {@code i} (from 0) is due. */
    long offsetNanos(int i) {
        return offsets[i];
    }

    /** How long to wait before sending arrival {@code i}, {@code elapsedNanos} after the start: never negative. */
    long waitNanos(int i, long elapsedNanos) {
        return Math.max(0, offsets[i] - elapsedNanos);
    }
}
