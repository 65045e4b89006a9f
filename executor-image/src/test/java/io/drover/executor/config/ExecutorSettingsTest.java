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
        // A live node whose renewal hung on a half-open connection renews again by databaseTimeout
        // plus one renewal interval after the outage: no node may sweep before that.
        assertThat(s.sweepQuietPeriod()).as("quiet period").isGreaterThan(s.databaseTimeout().plus(s.lockRenewInterval()))
                .isEqualTo(Duration.ofSeconds(65));
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
                .hasMessageContaining("maxCrashes must be between 1 and 100, got 0")
                .hasMessageContaining("jobTimeouts[x] must be at least 1ms, got PT0S");
        // Sub-millisecond rounds to zero where the engine sleeps or polls: refused by name.
        assertThatThrownBy(() -> ExecutorSettings.builder().nodeName("n").acquireInterval(Duration.ofNanos(500_000))
                .globalLockPollInterval(Duration.ZERO).build())
                .hasMessageContaining("acquireInterval must be at least 1ms, got PT0.0005S")
                .hasMessageContaining("globalLockPollInterval must be at least 1ms, got PT0S");
    }

    /** The ranges the CRD enforces (SettingLimits), for a node configured without the operator. */
    @Test
    void theCrdsRangesAreRefusedAtStartupToo() {
        assertThatThrownBy(() -> ExecutorSettings.builder().nodeName("n").threads(5000).queueSize(2_000_000)
                .acquirePageSize(200_000).maxAttempts(2000).completionBatchSize(100_001).maxCrashes(101)
                .lockExpiry(Duration.ofHours(25)).globalLockMaxHold(Duration.ofDays(30))
                .acquireInterval(Duration.ofDays(200L * 365)).globalLockWaitTime(Duration.ofHours(25))
                .shutdownGracePeriod(Duration.ofMillis(500)).retryBackoff(Duration.ofMinutes(20))
                .retryBackoffMax(Duration.ofMinutes(1)).jobTimeout(Duration.ofDays(200L * 365 * 100)).build())
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("threads must be between 1 and 4096, got 5000")
                .hasMessageContaining("queueSize must be between 1 and 1000000, got 2000000")
                .hasMessageContaining("acquirePageSize must be between 1 and 100000, got 200000")
                // A node's default must be a value the job API accepts (1 to 1000), or every job sent
                // without its own maxAttempts would be refused for a field its sender never wrote.
                .hasMessageContaining("maxAttempts must be between 1 and 1000, got 2000")
                .hasMessageContaining("completionBatchSize must be between 1 and 100000, got 100001")
                .hasMessageContaining("maxCrashes must be between 1 and 100, got 101")
                .hasMessageContaining("lockExpiry must be at most 24h, got PT25H")
                .hasMessageContaining("globalLockMaxHold must be at most 24h, got PT720H")
                // Liveness's allowance of twice the longest wait overflowed nanoseconds past ~146 years.
                .hasMessageContaining("acquireInterval must be at most 24h, got PT1752000H")
                .hasMessageContaining("globalLockWaitTime must be at most 24h, got PT25H")
                .hasMessageContaining("shutdownGracePeriod must be at least 1s, got PT0.5S")
                .hasMessageContaining("retryBackoff (PT20M) must not exceed retryBackoffMax (PT1M)")
                .hasMessageContaining("jobTimeout must be at most 2562047h");
        ExecutorSettings edges = ExecutorSettings.builder().nodeName("n").threads(4096).queueSize(1_000_000)
                .acquirePageSize(100_000).maxAttempts(1000).completionBatchSize(100_000).maxCrashes(100)
                .lockExpiry(Duration.ofHours(24)).globalLockMaxHold(Duration.ofHours(24))
                .shutdownGracePeriod(Duration.ofSeconds(1)).retryBackoff(Duration.ofMinutes(1))
                .retryBackoffMax(Duration.ofMinutes(1)).jobTimeout(Duration.ofHours(2562047)).build();
        assertThat(edges.maxAttempts()).isEqualTo(1000);
    }

    @Test
    void everyInvalidSettingIsNamedInOneMessage() {
        assertThatThrownBy(() -> ExecutorSettings.builder().nodeName("n").threads(0).queueSize(10)
                .acquirePageSize(20).lockExpiry(Duration.ofSeconds(1)).schema("Bad-Name").build())
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("threads must be between 1 and 4096, got 0")
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
