package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.ExecutorClusterSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The operator reads a duration as the CRD's CEL rules do (Go's time.ParseDuration), so that a
 * value the CRD bounds is the value the executor is given: exactly, to the nanosecond.
 */
class KubeDurationsTest {
    private static final Pattern CRD_DURATION = Pattern.compile(ExecutorClusterSpec.DURATION);

    /** CEL reads it as 24h (lockExpiry's maximum); a double once rounded it to 24h plus 1ns, which the executor refused. */
    @Test
    void aFractionBelowANanosecondIsTruncatedAsCelTruncatesIt() {
        assertThat(KubeDurations.parse("24h0.0000000006s")).isEqualTo(Duration.ofHours(24));
        assertThat(goParseDuration("24h0.0000000006s")).isEqualTo(Duration.ofHours(24).toNanos());
        assertThat(CRD_DURATION.matcher("24h0.0000000006s").matches()).as("and the CRD refuses it").isFalse();
    }

    @Test
    void durationsAreReadExactly() {
        assertThat(KubeDurations.parse("2562047h0.000000001s")).as("a double loses this nanosecond")
                .isEqualTo(Duration.ofHours(2562047).plusNanos(1));
        assertThat(KubeDurations.parse("1.00000000001h")).isEqualTo(Duration.ofHours(1).plusNanos(36));
        assertThat(KubeDurations.parse("0.1s")).isEqualTo(Duration.ofMillis(100));
        assertThat(KubeDurations.parse("2562047h47m16.854775807s")).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
        assertThatThrownBy(() -> KubeDurations.parse("2562047h47m16.854775808s")).hasMessageContaining("longer than the longest");
    }

    /** Every form the CRD's pattern admits is read as Go reads it, which its floating point does exactly for these. */
    @Test
    void everyDurationTheCrdAdmitsIsReadAsGoReadsIt() {
        String[] units = {"ms", "s", "m", "h"};
        int[] decimals = {6, 9, 10, 11};
        SplittableRandom random = new SplittableRandom(42);
        for (int n = 0; n < 200_000; n++) {
            StringBuilder text = new StringBuilder();
            for (int part = 1 + random.nextInt(3); part > 0; part--) {
                int unit = random.nextInt(units.length);
                text.append(random.nextInt(2) == 0 ? random.nextInt(100) : random.nextLong(100_000));
                if (random.nextBoolean()) {
                    text.append('.');
                    for (int d = 1 + random.nextInt(decimals[unit]); d > 0; d--) {
                        text.append(random.nextInt(4) == 0 ? '9' : (char) ('0' + random.nextInt(10)));
                    }
                }
                text.append(units[unit]);
            }
            String s = text.toString();
            assertThat(CRD_DURATION.matcher(s).matches()).as(s).isTrue();
            assertThat(KubeDurations.parse(s).toNanos()).as(s).isEqualTo(goParseDuration(s));
        }
    }

    /** Why the CRD refuses finer fractions: Go's floating point and exact decimals part by a nanosecond. */
    @Test
    void finerFractionsAreWhereGoAndExactDecimalsDiffer() {
        String s = "0.99999999999999999999h";
        assertThat(goParseDuration(s)).isEqualTo(Duration.ofHours(1).toNanos());
        assertThat(KubeDurations.parse(s)).isEqualTo(Duration.ofHours(1).minusNanos(1));
        assertThat(CRD_DURATION.matcher(s).matches()).isFalse();
    }

    /**
     * Go's time.ParseDuration (src/time/format.go), which CEL's duration() runs, for the syntax
     * the CRD takes (no sign, no ns/us units): a fraction is added as
     * {@code uint64(float64(f) * (float64(unit) / scale))}.
     */
    static long goParseDuration(String s) {
        long d = 0;
        int i = 0;
        while (i < s.length()) {
            long v = 0;
            while (i < s.length() && Character.isDigit(s.charAt(i))) {
                v = Math.addExact(Math.multiplyExact(v, 10), s.charAt(i++) - '0');
            }
            long f = 0;
            double scale = 1;
            if (i < s.length() && s.charAt(i) == '.') {
                i++;
                boolean overflow = false;
                while (i < s.length() && Character.isDigit(s.charAt(i))) {
                    int digit = s.charAt(i++) - '0';
                    if (overflow || f > Long.MAX_VALUE / 10) {
                        overflow = true; // Go drops the digits past what a uint64 holds
                        continue;
                    }
                    f = f * 10 + digit;
                    scale *= 10;
                }
            }
            int u = i;
            while (i < s.length() && !Character.isDigit(s.charAt(i)) && s.charAt(i) != '.') {
                i++;
            }
            long unit = switch (s.substring(u, i)) {
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                case "h" -> 3_600_000_000_000L;
                default -> throw new IllegalArgumentException("unit in " + s);
            };
            v = Math.multiplyExact(v, unit);
            if (f > 0) {
                v = Math.addExact(v, (long) ((double) f * ((double) unit / scale)));
            }
            d = Math.addExact(d, v);
        }
        return d;
    }
}
