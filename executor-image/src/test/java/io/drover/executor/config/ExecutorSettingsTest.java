package io.drover.executor.config;

import io.drover.contract.SettingDefaults;
import io.drover.executor.acquire.LockMode;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExecutorSettingsTest {
    @Test
    void defaultsAreValid() {
        ExecutorSettings s = ExecutorSettings.builder().nodeName("n").build();
        Duration lockExpiry = Durations.parse("lockExpiry", SettingDefaults.LOCK_EXPIRY);
        assertThat(s.lockMode()).isEqualTo(LockMode.valueOf(SettingDefaults.LOCK_MODE));
        assertThat(s.lockExpiry()).isEqualTo(lockExpiry);
        assertThat(s.lockRenewInterval()).as("lockExpiry / 4").isEqualTo(lockExpiry.dividedBy(4));
        Duration halfExpiry = lockExpiry.dividedBy(2);
        assertThat(s.expiredLockSweepInterval()).as("lockExpiry / 2, at most 30 s")
                .isEqualTo(halfExpiry.compareTo(Duration.ofSeconds(30)) < 0 ? halfExpiry : Duration.ofSeconds(30));
        assertThat(s.databaseTimeout()).as("lockExpiry / 2").isEqualTo(lockExpiry.dividedBy(2));
        assertThat(s.lease()).as("lockExpiry x 7/8").isEqualTo(lockExpiry.multipliedBy(7).dividedBy(8));
        assertThat(s.jobTimeout("any")).isEqualTo(Durations.parse("jobTimeout", SettingDefaults.JOB_TIMEOUT));
        assertThat(s.maxCrashes()).isEqualTo(Integer.parseInt(SettingDefaults.MAX_CRASHES));
    }

    @Test
    void jobTimeoutsPerTypeOverrideJobTimeout() {
        ExecutorSettings s = ExecutorSettings.builder().nodeName("n").jobTimeout(Duration.ofMinutes(1))
                .jobTimeouts(JobTimeouts.parse("{\"report\": \"2h\", \"a,b=c\": \"PT30S\"}")).build();
        assertThat(s.jobTimeout("report")).isEqualTo(Duration.ofHours(2));
        assertThat(s.jobTimeout("a,b=c")).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.jobTimeout("other")).isEqualTo(Duration.ofMinutes(1));
        assertThatThrownBy(() -> JobTimeouts.parse("report=2h")).hasMessageStartingWith(
                "jobTimeouts must be a JSON object of job type to duration");
        assertThatThrownBy(() -> JobTimeouts.parse("{\"report\": \"soon\"}"))
                .hasMessage("jobTimeouts[report] must be a duration such as PT1M, 30s or 500ms, got 'soon'");
        assertThatThrownBy(() -> ExecutorSettings.builder().nodeName("n").maxCrashes(0)
                .jobTimeouts(java.util.Map.of("x", Duration.ZERO)).build())
                .hasMessageContaining("maxCrashes must be at least 1, got 0")
                .hasMessageContaining("jobTimeouts[x] must be at least 1ms, got PT0S");
        // Sub-millisecond rounds to zero where the engine sleeps or polls: refused by name.
        assertThatThrownBy(() -> ExecutorSettings.builder().nodeName("n").acquireInterval(Duration.ofNanos(500_000))
                .globalLockPollInterval(Duration.ZERO).build())
                .hasMessageContaining("acquireInterval must be at least 1ms, got PT0.0005S")
                .hasMessageContaining("globalLockPollInterval must be at least 1ms, got PT0S");
    }

    @Test
    void everyInvalidSettingIsNamedInOneMessage() {
        assertThatThrownBy(() -> ExecutorSettings.builder().nodeName("n").threads(0).queueSize(10)
                .acquirePageSize(20).lockExpiry(Duration.ofSeconds(1)).schema("Bad-Name").build())
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("threads must be at least 1, got 0")
                .hasMessageContaining("acquirePageSize (20) must not exceed queueSize (10)")
                .hasMessageContaining("lockExpiry must be at least 4s")
                .hasMessageContaining("schema must be a lower-case SQL identifier");
    }

    @Test
    void lockModeParsingNamesTheSettingAndTheChoices() {
        assertThat(LockMode.parse("global")).isEqualTo(LockMode.Global);
        assertThatThrownBy(() -> LockMode.parse("Pessimistic"))
                .hasMessage("lockMode must be one of Global, Optimistic, SkipLocked, got 'Pessimistic'");
    }
}
