package io.drover.executor.config;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationsTest {
    @Test
    void readsIsoAndShortForms() {
        assertThat(Durations.parse("PT1M")).contains(Duration.ofMinutes(1));
        assertThat(Durations.parse("pt90s")).contains(Duration.ofSeconds(90));
        assertThat(Durations.parse("500ms")).contains(Duration.ofMillis(500));
        assertThat(Durations.parse(" 30s ")).contains(Duration.ofSeconds(30));
        assertThat(Durations.parse("5m")).contains(Duration.ofMinutes(5));
        assertThat(Durations.parse("2h")).contains(Duration.ofHours(2));
        assertThat(Durations.parse("1d")).contains(Duration.ofDays(1));
        assertThat(Durations.parse("1.5s")).contains(Duration.ofMillis(1500));
    }

    /** The API and the tools read durations as the configuration does (Quarkus' converter). */
    @Test
    void aBareNumberIsSecondsAsInTheConfiguration() {
        assertThat(Durations.parse("60")).contains(Duration.ofSeconds(60));
        assertThat(Durations.parse("60"))
                .contains(new io.quarkus.runtime.configuration.DurationConverter().convert("60"));
    }

    @Test
    void rejectsAnythingElseNamingTheSetting() {
        assertThat(Durations.parse("soon")).isEmpty();
        assertThat(Durations.parse("10x")).isEmpty();
        assertThat(Durations.parse("")).isEmpty();
        assertThatThrownBy(() -> Durations.parse("--timeout", "forever"))
                .hasMessage("--timeout must be a duration such as PT1M, 30s or 500ms, got 'forever'");
    }
}
