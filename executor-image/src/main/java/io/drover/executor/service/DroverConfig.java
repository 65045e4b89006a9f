package io.drover.executor.service;

import io.smallrye.config.ConfigMapping;

import java.time.Duration;
import java.util.Optional;

/**
 * The executor's settings as Quarkus configuration: {@code drover.<name>} in
 * application.properties, or env {@code DROVER_<NAME>} (e.g. DROVER_QUEUESIZE). Names are kept
 * verbatim (camelCase) so they read the same as in the ExecutorCluster spec and Helm values.
 * Every setting is optional here: defaults live in one place, {@code ExecutorSettings.Builder}.
 */
@ConfigMapping(prefix = "drover", namingStrategy = ConfigMapping.NamingStrategy.VERBATIM)
public interface DroverConfig {
    Optional<String> nodeName();

    Optional<String> schema();

    Optional<String> lockMode();

    Optional<Integer> threads();

    Optional<Boolean> virtualThreads();

    Optional<Integer> queueSize();

    Optional<Integer> acquirePageSize();

    Optional<Duration> acquireInterval();

    Optional<Duration> globalLockWaitTime();

    Optional<Duration> globalLockPollInterval();

    Optional<Duration> globalLockMaxHold();

    Optional<Duration> lockExpiry();

    Optional<Integer> maxAttempts();

    Optional<Duration> retryBackoff();

    Optional<Duration> retryBackoffMax();

    Optional<Integer> completionBatchSize();

    Optional<Duration> shutdownGracePeriod();

    /** Set false to run the service without executing jobs (e.g. an API-only deployment). */
    Optional<Boolean> enabled();
}
