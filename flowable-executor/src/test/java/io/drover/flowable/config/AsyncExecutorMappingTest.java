package io.drover.flowable.config;

import io.drover.contract.SettingDefaults;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.flowable.engine.impl.cfg.ProcessEngineConfigurationImpl;
import org.flowable.engine.impl.cfg.StandaloneProcessEngineConfiguration;
import org.flowable.job.service.impl.asyncexecutor.AsyncJobExecutorConfiguration;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each ExecutorCluster setting lands on the Flowable property docs/engines.md names; what Flowable cannot do is refused by name. */
class AsyncExecutorMappingTest {
    @Test
    void everySettingLandsOnItsFlowableProperty() {
        ProcessEngineConfigurationImpl cfg = new StandaloneProcessEngineConfiguration();
        AsyncExecutorMapping m = AsyncExecutorMapping.of(settings(Map.of(
                "drover.nodeName", "payments-executor-2", "drover.lockMode", "Global", "drover.threads", "16",
                "drover.queueSize", "2048", "drover.acquirePageSize", "512", "drover.acquireInterval", "2s",
                "drover.globalLockWaitTime", "30s", "drover.globalLockPollInterval", "250ms", "drover.globalLockMaxHold", "2m",
                "drover.lockExpiry", "5m")));
        m.applyTo(cfg);
        assertThat(cfg.getAsyncExecutorCorePoolSize()).isEqualTo(16);
        assertThat(cfg.getAsyncExecutorMaxPoolSize()).isEqualTo(16);
        assertThat(cfg.getAsyncExecutorThreadPoolQueueSize()).isEqualTo(2048);
        AsyncJobExecutorConfiguration a = cfg.getAsyncExecutorConfiguration();
        assertThat(a.getMaxAsyncJobsDuePerAcquisition()).isEqualTo(512);
        assertThat(a.getMaxTimerJobsPerAcquisition()).isEqualTo(512);
        assertThat(a.getDefaultAsyncJobAcquireWaitTime()).isEqualTo(Duration.ofSeconds(2));
        assertThat(a.getDefaultTimerJobAcquireWaitTime()).isEqualTo(Duration.ofSeconds(2));
        assertThat(a.isGlobalAcquireLockEnabled()).isTrue();
        assertThat(a.getAsyncJobsGlobalLockWaitTime()).isEqualTo(Duration.ofSeconds(30));
        assertThat(a.getTimerLockWaitTime()).isEqualTo(Duration.ofSeconds(30));
        assertThat(a.getAsyncJobsGlobalLockPollRate()).isEqualTo(Duration.ofMillis(250));
        assertThat(a.getTimerLockPollRate()).isEqualTo(Duration.ofMillis(250));
        assertThat(a.getAsyncJobsGlobalLockForceAcquireAfter()).isEqualTo(Duration.ofMinutes(2));
        assertThat(a.getTimerLockForceAcquireAfter()).isEqualTo(Duration.ofMinutes(2));
        assertThat(a.getAsyncJobLockTime()).isEqualTo(Duration.ofMinutes(5));
        assertThat(a.getTimerLockTime()).isEqualTo(Duration.ofMinutes(5));
        assertThat(a.getResetExpiredJobsInterval()).as("lockExpiry / 2, at most 30 s").isEqualTo(Duration.ofSeconds(30));
        assertThat(a.getLockOwner()).isEqualTo("payments-executor-2");
        assertThat(a.isUnlockOwnedJobs()).isTrue();
    }

    @Test
    void optimisticIsFlowablesDefaultWithoutTheGlobalLock() {
        ProcessEngineConfigurationImpl cfg = new StandaloneProcessEngineConfiguration();
        AsyncExecutorMapping.of(settings(Map.of("drover.lockMode", "Optimistic", "drover.lockExpiry", "20s"))).applyTo(cfg);
        assertThat(cfg.getAsyncExecutorConfiguration().isGlobalAcquireLockEnabled()).isFalse();
        assertThat(cfg.getAsyncExecutorConfiguration().getResetExpiredJobsInterval()).isEqualTo(Duration.ofSeconds(10));
        // Unset settings take the defaults every engine shares.
        assertThat(cfg.getAsyncExecutorCorePoolSize()).isEqualTo(Integer.parseInt(SettingDefaults.THREADS));
        assertThat(cfg.getAsyncExecutorThreadPoolQueueSize()).isEqualTo(Integer.parseInt(SettingDefaults.QUEUE_SIZE));
        assertThat(cfg.getAsyncExecutorConfiguration().getMaxAsyncJobsDuePerAcquisition())
                .isEqualTo(Integer.parseInt(SettingDefaults.ACQUIRE_PAGE_SIZE));
        assertThat(cfg.getAsyncExecutorNumberOfRetries()).isEqualTo(Integer.parseInt(SettingDefaults.MAX_ATTEMPTS));
    }

    @Test
    void skipLockedIsRefusedByNameAsTheDefault() {
        assertThatThrownBy(() -> AsyncExecutorMapping.of(settings(Map.of())))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("lockMode SkipLocked is not available with the Flowable engine")
                .hasMessageContaining("use Global");
    }

    @Test
    void everyBadSettingIsNamed() {
        assertThatThrownBy(() -> AsyncExecutorMapping.of(settings(Map.of("drover.lockMode", "Fast", "drover.threads", "0",
                "drover.queueSize", "8", "drover.acquirePageSize", "16", "drover.schema", "Bad-Name",
                "drover.flowable.historyLevel", "everything"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("lockMode must be Global or Optimistic")
                .hasMessageContaining("threads must be between 1 and 4096, got 0")
                .hasMessageContaining("acquirePageSize (16) must not exceed queueSize (8)")
                .hasMessageContaining("schema must be")
                .hasMessageContaining("flowable.historyLevel");
    }

    @Test
    void theCrdsRangesAndAnyCaseOfLockModeAsTheDroverExecutorReadsThem() {
        assertThat(AsyncExecutorMapping.of(settings(Map.of("drover.lockMode", "global"))).globalAcquireLock()).isTrue();
        assertThatThrownBy(() -> AsyncExecutorMapping.of(settings(Map.of("drover.lockMode", "skiplocked"))))
                .hasMessageContaining("lockMode SkipLocked is not available");
        assertThatThrownBy(() -> AsyncExecutorMapping.of(settings(Map.of("drover.lockMode", "Global", "drover.threads", "5000",
                "drover.maxAttempts", "2000", "drover.lockExpiry", "25h", "drover.globalLockMaxHold", "48h"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("threads must be between 1 and 4096, got 5000")
                .hasMessageContaining("maxAttempts must be between 1 and 1000, got 2000")
                .hasMessageContaining("lockExpiry must be at most 24h, got PT25H")
                .hasMessageContaining("globalLockMaxHold must be at most 24h, got PT48H");
        // Flowable reads these as int milliseconds and int seconds: longer ones wrapped negative.
        assertThatThrownBy(() -> AsyncExecutorMapping.of(settings(Map.of("drover.lockMode", "Global",
                "drover.acquireInterval", "25h", "drover.retryBackoff", "596524h"))))
                .hasMessageContaining("acquireInterval must be at most 24h, got PT25H")
                .hasMessageContaining("retryBackoff must be at most 596523h, got PT596524H");
    }

    static FlowableSettings settings(Map<String, String> values) {
        Map<String, String> all = new HashMap<>(values);
        return new SmallRyeConfigBuilder()
                .withMapping(FlowableSettings.class)
                .withConverter(Duration.class, 200, new DurationConverter())
                .withSources(new PropertiesConfigSource(all, "test", 500))
                .build()
                .getConfigMapping(FlowableSettings.class);
    }
}
