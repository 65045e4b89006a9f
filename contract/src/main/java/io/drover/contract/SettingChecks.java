package io.drover.contract;

import java.time.Duration;
import java.util.List;

/**
 * The range checks of {@link SettingLimits}, in one place for both executors (Drover's and
 * Flowable's), so that they refuse a value with the same words.
 */
public final class SettingChecks {
    /** Go's longest duration, the most a Kubernetes duration field can hold. */
    public static final String LONGEST = "2562047h";

    private SettingChecks() {
    }

    public static void between(List<String> problems, String name, int value, int min, int max) {
        if (value < min || value > max) {
            problems.add(name + " must be between " + min + " and " + max + ", got " + value);
        }
    }

    /**
     * @param min a duration in SettingLimits' form ("1ms", "4s", "24h")
     * @param max likewise; null: up to {@link #LONGEST}
     */
    public static void between(List<String> problems, String name, Duration value, String min, String max) {
        String high = max == null ? LONGEST : max;
        if (value == null || value.compareTo(duration(min)) < 0) {
            problems.add(name + " must be at least " + min + ", got " + value);
        } else if (value.compareTo(duration(high)) > 0) {
            problems.add(name + " must be at most " + high + ", got " + value);
        }
    }

    /** A duration in SettingLimits' form: a whole number and one unit of ms, s, m or h. */
    public static Duration duration(String text) {
        int unit = 0;
        while (unit < text.length() && Character.isDigit(text.charAt(unit))) {
            unit++;
        }
        long n = Long.parseLong(text.substring(0, unit));
        return switch (text.substring(unit)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> throw new IllegalArgumentException("not a SettingLimits duration: " + text);
        };
    }
}
