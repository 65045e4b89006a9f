package io.drover.operator.resources;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the Kubernetes/Go duration form of the CRD ("1m30s", "500ms"). The CRD schema has
 * already checked the syntax; the executor is given ISO-8601 (PT1M30S), which it parses.
 *
 * <p>Exactly, as the CRD's CEL rules read it: each number+unit pair is converted in decimal and
 * truncated to whole nanoseconds, as Go's time.ParseDuration (CEL's duration()) truncates it, and
 * the pairs are added. The CRD only takes fractions that are whole nanoseconds
 * (ExecutorClusterSpec.DURATION), which Go's floating point computes exactly, so both read the
 * same value. Before, a double rounded "24h0.0000000006s" up to 24h plus 1ns, which CEL read as
 * 24h (the lockExpiry maximum) and the executor refused.
 */
public final class KubeDurations {
    private static final Pattern PART = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)(ms|s|m|h)");
    private static final BigInteger NANOS_PER_SECOND = BigInteger.valueOf(1_000_000_000L);
    /** Go's longest duration, 2^63-1 ns (2562047h47m16.854775807s): CEL's duration() refuses a longer one. */
    private static final BigInteger LONGEST_NANOS = BigInteger.valueOf(Long.MAX_VALUE);

    private KubeDurations() {
    }

    public static Duration parse(String text) {
        Matcher m = PART.matcher(text);
        int end = 0;
        BigInteger nanos = BigInteger.ZERO;
        while (m.find() && m.start() == end) {
            long unit = switch (m.group(2)) {
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                default -> 3_600_000_000_000L;
            };
            nanos = nanos.add(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit))
                    .setScale(0, RoundingMode.DOWN).toBigIntegerExact());
            end = m.end();
        }
        if (end == 0 || end != text.length()) {
            throw new IllegalArgumentException("not a duration like 30s, 1m30s or 500ms: '" + text + "'");
        }
        if (nanos.compareTo(LONGEST_NANOS) > 0) {
            throw new IllegalArgumentException("longer than the longest Kubernetes duration (2562047h47m16.854775807s): '" + text + "'");
        }
        BigInteger[] secondsAndNanos = nanos.divideAndRemainder(NANOS_PER_SECOND);
        return Duration.ofSeconds(secondsAndNanos[0].longValueExact(), secondsAndNanos[1].longValueExact());
    }

    /** Whole seconds, at least 1 (KEDA's intervals are integers). */
    public static int seconds(String text) {
        // The CRD bounds every such field far below; saturating keeps a spec read before that from wrapping.
        return Math.clamp(parse(text).toSeconds(), 1, Integer.MAX_VALUE);
    }
}
