package io.drover.executor.engine;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class RetryPolicyTest {
    @Test
    void doublesPerAttemptWithinJitterAndStopsAtTheCap() {
        RetryPolicy policy = new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30));
        for (int i = 0; i < 200; i++) {
            assertThat(policy.delayMillis(1)).isBetween(800L, 1200L);
            assertThat(policy.delayMillis(3)).isBetween(3200L, 4800L);
            assertThat(policy.delayMillis(50)).isBetween(24_000L, 30_000L);
        }
    }
}
