package io.drover.executor.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/** Durations as users write them: ISO-8601 ({@code PT1M}) or short ({@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d}). */
public final class Durations {
    private Durations() {
    }

    /** @return empty when the text is neither form */
    public static Optional<Duration> parse(String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        String s = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.startsWith("p")) {
                return Optional.of(Duration.parse(s.toUpperCase(Locale.ROOT)));
            }
            if (s.endsWith("ms")) {
                return Optional.of(Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2))));
            }
            long n = Long.parseLong(s.substring(0, s.length() - 1));
            return Optional.ofNullable(switch (s.charAt(s.length() - 1)) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                case 'd' -> Duration.ofDays(n);
                default -> null;
            });
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** @throws IllegalArgumentException naming the setting when the text is neither form */
    public static Duration parse(String name, String text) {
        return parse(text).orElseThrow(() -> new IllegalArgumentException(
                name + " must be a duration such as PT1M, 30s or 500ms, got '" + text + "'"));
    }
}
