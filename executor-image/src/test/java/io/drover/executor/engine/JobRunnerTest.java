package io.drover.executor.engine;

import io.drover.executor.handler.HandlerRegistry;
import io.drover.executor.handler.NoopHandler;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.AcquiredJob;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The runner's decisions that need no database: what it counts for rows it will not run. */
class JobRunnerTest {
    /**
     * Producers choose type names: counted by name, 1,000 invented types made 1,000 timers with
     * histograms and 5,000 counters on every node, for good, all on the unauthenticated
     * /q/metrics. Types without a handler here share one label.
     */
    @Test
    void typesNoHandlerKnowsShareOneMetricLabel() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        JobRunner runner = new JobRunner(HandlerRegistry.of(List.of(new NoopHandler())),
                new RetryPolicy(Duration.ofSeconds(1), Duration.ofMinutes(1)), new ExecutorMetrics(registry), "node-a",
                () -> false);
        for (int i = 0; i < 1000; i++) {
            assertThat(runner.precheck(job("invented-" + i))).isInstanceOf(Outcome.Deferred.class);
        }
        assertThat(registry.find("drover.jobs.executed").meters())
                .allSatisfy(m -> assertThat(m.getId().getTag("type")).isEqualTo(JobRunner.UNHANDLED_TYPE))
                .isNotEmpty();
        assertThat(registry.find("drover.jobs.executed").tag("type", JobRunner.UNHANDLED_TYPE).tag("outcome", "deferred")
                .counter().count()).isEqualTo(1000);
    }

    private static AcquiredJob job(String type) {
        return new AcquiredJob(1, 1, type, "", 0, 3, Instant.now(), null, 0, 0, 0, false);
    }
}
