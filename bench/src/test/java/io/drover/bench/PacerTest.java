package io.drover.bench;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PacerTest {
    @Test
    void arrivesAtTheMeanRateWithinTheDuration() {
        Pacer p = new Pacer(100, 100);
        // Poisson: 10,000 expected, standard deviation 100.
        assertThat(p.arrivals()).isBetween(9_600, 10_400);
        assertThat(p.offsetNanos(0)).isZero();
        assertThat(p.offsetNanos(p.arrivals() - 1)).isLessThan(100_000_000_000L);
        for (int i = 1; i < p.arrivals(); i++) {
            assertThat(p.offsetNanos(i)).isGreaterThanOrEqualTo(p.offsetNanos(i - 1));
        }
    }

    @Test
    void gapsAreExponentialNotEven() {
        Pacer p = new Pacer(10, 1000);
        int n = p.arrivals() - 1;
        int shorterThanMean = 0;
        for (int i = 1; i <= n; i++) {
            if (p.offsetNanos(i) - p.offsetNanos(i - 1) < 100_000_000L) {
                shorterThanMean++;
            }
        }
        // P(gap < mean) = 1 - 1/e = 0.632 for exponential gaps; 0 or 1 for even ones.
        assertThat((double) shorterThanMean / n).isBetween(0.60, 0.66);
    }

    @Test
    void theScheduleIsTheSameEveryRun() {
        assertThat(new Pacer(10, 5).offsetNanos(7)).isEqualTo(new Pacer(10, 5).offsetNanos(7));
    }

    @Test
    void aLateArrivalGoesAtOnceAndDoesNotShiftTheNextOnes() {
        Pacer p = new Pacer(10, 60, new Random(1));
        long third = p.offsetNanos(3);
        assertThat(p.waitNanos(3, third - 5)).isEqualTo(5);
        assertThat(p.waitNanos(3, third + 1_000_000_000L)).isZero();
        assertThat(p.offsetNanos(4)).isEqualTo(new Pacer(10, 60, new Random(1)).offsetNanos(4));
    }

    @Test
    void aShortRunStillSendsOneAndNonsenseIsRefused() {
        assertThat(new Pacer(1, 0.001).arrivals()).isEqualTo(1);
        assertThatThrownBy(() -> new Pacer(0, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Pacer(1, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }
}
