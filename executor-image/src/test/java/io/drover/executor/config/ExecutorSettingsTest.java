package io.drover.executor.config;

import io.drover.executor.acquire.LockMode;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExecutorSettingsTest {
    @Test
    void defaultsAreValid() {
        ExecutorSettings s = ExecutorSettings.builder().nodeName("n").build();
        assertThat(s.lockMode()).isEqualTo(LockMode.SkipLocked);
        assertThat(s.lockRenewInterval()).isEqualTo(Duration.ofSeconds(15));
        assertThat(s.expiredLockSweepInterval()).isEqualTo(Duration.ofSeconds(30));
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
