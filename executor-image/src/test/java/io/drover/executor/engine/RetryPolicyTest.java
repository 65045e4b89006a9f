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

    @Test
    void noRetryIsPutFurtherAheadThanADueDateMayBe() {
        RetryPolicy policy = new RetryPolicy(Duration.ofHours(1), Duration.ofHours(2562047));
        assertThat(policy.delayMillis(40)).isLessThanOrEqualTo(io.drover.executor.store.JobLimits.LATEST_DUE_AHEAD.toMillis());
        assertThat(new RetryPolicy(Duration.ofHours(2562047), Duration.ofHours(2562047)).delayMillis(1))
                .isLessThanOrEqualTo(io.drover.executor.store.JobLimits.LATEST_DUE_AHEAD.toMillis());
    }
}
