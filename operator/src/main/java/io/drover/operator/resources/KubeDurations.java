package io.drover.operator.resources;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the Kubernetes/Go duration form of the CRD ("1m30s", "500ms"). The CRD schema has
 * already checked the syntax; the executor is given ISO-8601 (PT1M30S), which it parses.
 */
public final class KubeDurations {
    private static final Pattern PART = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)(ms|s|m|h)");

    private KubeDurations() {
    }

    public static Duration parse(String text) {
        Matcher m = PART.matcher(text);
        int end = 0;
        double nanos = 0;
        while (m.find() && m.start() == end) {
            double n = Double.parseDouble(m.group(1));
            nanos += n * switch (m.group(2)) {
                case "ms" -> 1e6;
                case "s" -> 1e9;
                case "m" -> 60e9;
                default -> 3600e9;
            };
            end = m.end();
        }
        if (end == 0 || end != text.length()) {
            throw new IllegalArgumentException("not a duration like 30s, 1m30s or 500ms: '" + text + "'");
        }
        return Duration.ofNanos(Math.round(nanos));
    }

    /** Whole seconds, at least 1 (KEDA's intervals are integers). */
    public static int seconds(String text) {
        // The CRD bounds every such field far below; saturating keeps a spec read before that from wrapping.
        return Math.clamp(parse(text).toSeconds(), 1, Integer.MAX_VALUE);
    }
}
