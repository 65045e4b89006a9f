package io.drover.executor.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What a job row may hold, in one place for the API (which refuses a request outside these
 * ranges, naming the field) and the engine (which dead-letters a row outside them with the same
 * words: rows can also come from plain SQL). Outside these ranges the arithmetic of lag metrics
 * and of a recurring timer's next slot overflows; inside them it cannot.
 */
public final class JobLimits {
    /** No job is due before this: a dueAt in 1700 is a bug in its producer, not a schedule. */
    public static final Instant EARLIEST_DUE = Instant.parse("2000-01-01T00:00:00Z");
    /** How far ahead a job may be scheduled. */
    public static final Duration LATEST_DUE_AHEAD = Duration.ofDays(100 * 365);
    public static final Duration MIN_REPEAT = Duration.ofSeconds(1);
    public static final Duration MAX_REPEAT = Duration.ofDays(100 * 365);
    /** Payload size in bytes (UTF-8), the same bound for the API and for rows written with SQL. */
    public static final int MAX_PAYLOAD_BYTES = 1_048_576;
    /**
     * The most a row's attempts, crashes and deferrals may count: far above what a node ever
     * writes for a one-off job (attempts stop at maxAttempts, at most 1000 through the API; crashes
     * at maxCrashes; deferrals at an hour's hand-backs), and far below the int's end. A recurring
     * timer's attempts count its consecutive failures without end (a failing timer keeps its grid),
     * so they are not held to it: the engine's statements cap them instead.
     */
    public static final int MAX_COUNTER = 1_000_000;

    private JobLimits() {
    }

    /** Why a due time is refused, or empty. {@code now} bounds the future side. */
    public static Optional<String> dueAtProblem(Instant dueAt, Instant now) {
        if (dueAt.isBefore(EARLIEST_DUE)) {
            return Optional.of("must not be before " + EARLIEST_DUE + ", got " + dueAt);
        }
        if (dueAt.isAfter(now.plus(LATEST_DUE_AHEAD))) {
            return Optional.of("must be at most 100 years ahead, got " + dueAt);
        }
        return Optional.empty();
    }

    /** Why a recurring timer's period is refused, or empty. */
    public static Optional<String> repeatProblem(double seconds) {
        if (Double.isNaN(seconds)) {
            // A slot is the grid plus a whole number of periods: with days or months (whose length
            // varies: month ends, daylight saving), the number worked out in seconds gave slots
            // in the past (the timer ran again at once) or past a slot still to come (a run lost).
            return Optional.of("must be a period of hours, minutes and seconds; days and months vary in length"
                    + " (write '24 hours', not '1 day')");
        }
        if (seconds < MIN_REPEAT.toSeconds() || seconds > MAX_REPEAT.toSeconds()) {
            return Optional.of("must be between 1s and 100 years, got "
                    + java.math.BigDecimal.valueOf(seconds).stripTrailingZeros().toPlainString() + "s");
        }
        return Optional.empty();
    }

    /**
     * Why a row's counters are refused (written with plain SQL: the engine never writes such), or
     * empty. A recurring timer's attempts are not checked ({@link #MAX_COUNTER}).
     */
    public static Optional<String> countersProblem(boolean recurring, int attempts, int crashes, int deferrals) {
        return (recurring ? Optional.<String>empty() : counterProblem("attempts", attempts))
                .or(() -> counterProblem("crashes", crashes)).or(() -> counterProblem("deferrals", deferrals));
    }

    private static Optional<String> counterProblem(String name, int value) {
        return value < 0 || value > MAX_COUNTER
                ? Optional.of(name + " must be between 0 and " + MAX_COUNTER + ", got " + value) : Optional.empty();
    }

    public static Optional<String> payloadProblem(long bytes) {
        if (bytes > MAX_PAYLOAD_BYTES) {
            return Optional.of("must be at most " + MAX_PAYLOAD_BYTES + " bytes, got " + bytes);
        }
        return Optional.empty();
    }
}
