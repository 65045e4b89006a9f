package io.drover.executor.service;

import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.config.InvalidSettingsException;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every engine setting the executor reads (DroverConfig) reaches the engine (ExecutorSettings):
 * a setting SettingsFactory forgot to pass on would otherwise run at its default without a word.
 * The configuration is SmallRye's own mapping, as the service reads it, without Quarkus.
 */
class SettingsFactoryTest {
    /** A value other than the default for every engine setting, as an operator's ConfigMap would give them. */
    private static final Map<String, String> EVERY_SETTING = Map.ofEntries(
            Map.entry("drover.nodeName", "node-7"),
            Map.entry("drover.schema", "billing"),
            Map.entry("drover.lockMode", "Global"),
            Map.entry("drover.threads", "3"),
            Map.entry("drover.virtualThreads", "true"),
            Map.entry("drover.queueSize", "64"),
            Map.entry("drover.acquirePageSize", "16"),
            Map.entry("drover.acquireInterval", "2s"),
            Map.entry("drover.globalLockWaitTime", "3s"),
            Map.entry("drover.globalLockPollInterval", "30ms"),
            Map.entry("drover.globalLockMaxHold", "4s"),
            Map.entry("drover.lockExpiry", "40"),
            Map.entry("drover.maxAttempts", "5"),
            Map.entry("drover.retryBackoff", "PT2S"),
            Map.entry("drover.retryBackoffMax", "1m"),
            Map.entry("drover.completionBatchSize", "100"),
            Map.entry("drover.shutdownGracePeriod", "20s"),
            Map.entry("drover.jobTimeout", "1m"),
            Map.entry("drover.jobTimeouts", "{\"report\": \"2h\"}"),
            Map.entry("drover.maxCrashes", "2"));

    @Test
    void everySettingReadReachesTheEngine() throws Exception {
        ExecutorSettings given = SettingsFactory.from(config(EVERY_SETTING));
        ExecutorSettings defaults = ExecutorSettings.builder().nodeName("node-7").build();
        for (RecordComponent c : ExecutorSettings.class.getRecordComponents()) {
            if (c.getName().equals("nodeName")) {
                assertThat(given.nodeName()).isEqualTo("node-7");
                continue;
            }
            assertThat(c.getAccessor().invoke(given)).as("%s, given in drover.%s, reaches ExecutorSettings", c.getName(), c.getName())
                    .isNotEqualTo(c.getAccessor().invoke(defaults));
        }
        assertThat(given.lockExpiry()).as("a bare number is seconds, as everywhere in the executor").hasSeconds(40);
    }

    @Test
    void everyBadSettingIsNamedInOneMessage() {
        assertThatThrownBy(() -> SettingsFactory.from(config(Map.of("drover.nodeName", "n", "drover.lockMode", "Fast",
                "drover.threads", "0", "drover.jobTimeouts", "{\"a\": \"soon\"}", "drover.startupTimeout", "0s",
                "drover.backlogRefreshInterval", "0s", "drover.http.timeout", "PT0.0005S", "drover.api.maxBatch", "0"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("lockMode").hasMessageContaining("threads").hasMessageContaining("jobTimeouts")
                .hasMessageContaining("startupTimeout must be at least 1s, got PT0S")
                .hasMessageContaining("backlogRefreshInterval must be at least 1ms, got PT0S")
                .hasMessageContaining("http.timeout must be at least 1ms, got PT0.0005S")
                .hasMessageContaining("api.maxBatch must be");
    }

    /**
     * A webhook URL that does not parse, its secret in its query: refused naming the setting,
     * never quoting it. Mapped as a URI it failed in the configuration's own mapping, whose
     * message quoted it whole in the log and the pod's termination message.
     */
    @Test
    void anHttpUrlThatDoesNotParseIsRefusedWithoutQuotingIt() {
        assertThatThrownBy(() -> SettingsFactory.from(config(Map.of("drover.nodeName", "n",
                "drover.http.url", "https://hooks.example/in y?token=s3cret", "drover.http.allowedHosts", "https://other"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("http.url is not a valid URL (Illegal character in path at character 24)")
                .hasMessageContaining("http.allowedHosts entry 1 of 1 is not a host")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
    }

    private static DroverConfig config(Map<String, String> values) {
        return new SmallRyeConfigBuilder()
                .withMapping(DroverConfig.class)
                // Quarkus's own converter, as the running service has it (api.maxBodyBytesInFlight).
                .withConverter(io.quarkus.runtime.configuration.MemorySize.class, 100,
                        new io.quarkus.runtime.configuration.MemorySizeConverter())
                // Quarkus registers its duration converter (a bare number is seconds); so does this test.
                .withConverter(Duration.class, 200, new DurationConverter())
                .withSources(new PropertiesConfigSource(values, "test", 500))
                .build()
                .getConfigMapping(DroverConfig.class);
    }
}
