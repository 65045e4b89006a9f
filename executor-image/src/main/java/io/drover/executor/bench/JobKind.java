package io.drover.executor.bench;

import io.drover.executor.config.Durations;

import java.time.Duration;

/**
 * What the benchmark seeds: {@code noop}, {@code sleep:<ms>}, {@code timer} (no-op timers due
 * at seeding time) or {@code timer:<window>} (no-op timers spread evenly over the next window,
 * e.g. {@code timer:60s}, to measure lateness rather than drain speed).
 */
public record JobKind(String name, String type, String payload, long sleepMillis, Duration timerWindow) {

    public static JobKind parse(String text) {
        if (text.equals("noop")) {
            return new JobKind("noop", "noop", null, 0, null);
        }
        if (text.startsWith("sleep:")) {
            long ms = Long.parseLong(text.substring("sleep:".length()));
            return new JobKind(text, "sleep", Long.toString(ms), ms, null);
        }
        if (text.equals("timer")) {
            return new JobKind("timer", "noop", null, 0, Duration.ZERO);
        }
        if (text.startsWith("timer:")) {
            Duration window = Durations.parse("timer window", text.substring("timer:".length()));
            return new JobKind(text, "noop", null, 0, window);
        }
        throw new IllegalArgumentException("kind must be noop, sleep:<ms>, timer or timer:<window>, got '" + text + "'");
    }

    public boolean isTimer() {
        return timerWindow != null;
    }
}
