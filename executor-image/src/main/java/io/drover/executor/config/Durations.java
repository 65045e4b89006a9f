package io.drover.executor.config;

import io.quarkus.runtime.configuration.DurationConverter;

import java.time.Duration;
import java.util.Optional;

/**
 * The executor's one duration grammar, for its API and tools as for its configuration: Quarkus'
 * own converter, which reads the settings from the environment and application.properties.
 * ISO-8601 ({@code PT1M}, {@code pt90s}), a number with a unit ({@code 500ms}, {@code 30s},
 * {@code 1.5s}, {@code 5m}, {@code 2h}, {@code 1d}), or a bare number of seconds ({@code 60}).
 * So {@code DROVER_LOCKEXPIRY=60} and a job's {@code "repeatEvery": "60"} mean the same.
 */
public final class Durations {
    private static final DurationConverter QUARKUS = new DurationConverter();

    private Durations() {
    }

    /** @return empty when the text is not a duration */
    public static Optional<Duration> parse(String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable(QUARKUS.convert(text.trim()));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** @throws IllegalArgumentException naming the setting when the text is not a duration */
    public static Duration parse(String name, String text) {
        return parse(text).orElseThrow(() -> new IllegalArgumentException(
                name + " must be a duration such as PT1M, 30s or 500ms, got '" + text + "'"));
    }
}
