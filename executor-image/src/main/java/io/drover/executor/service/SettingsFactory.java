package io.drover.executor.service;

import io.drover.executor.acquire.LockMode;
import io.drover.executor.config.ExecutorSettings;

/** Turns Quarkus configuration into validated {@link ExecutorSettings}. */
final class SettingsFactory {
    private SettingsFactory() {
    }

    static ExecutorSettings from(DroverConfig c) {
        ExecutorSettings.Builder b = ExecutorSettings.builder();
        c.nodeName().ifPresent(b::nodeName);
        c.schema().ifPresent(b::schema);
        c.lockMode().map(LockMode::parse).ifPresent(b::lockMode);
        c.threads().ifPresent(b::threads);
        c.virtualThreads().ifPresent(b::virtualThreads);
        c.queueSize().ifPresent(b::queueSize);
        c.acquirePageSize().ifPresent(b::acquirePageSize);
        c.acquireInterval().ifPresent(b::acquireInterval);
        c.globalLockWaitTime().ifPresent(b::globalLockWaitTime);
        c.globalLockPollInterval().ifPresent(b::globalLockPollInterval);
        c.globalLockMaxHold().ifPresent(b::globalLockMaxHold);
        c.lockExpiry().ifPresent(b::lockExpiry);
        c.maxAttempts().ifPresent(b::maxAttempts);
        c.retryBackoff().ifPresent(b::retryBackoff);
        c.retryBackoffMax().ifPresent(b::retryBackoffMax);
        c.completionBatchSize().ifPresent(b::completionBatchSize);
        c.shutdownGracePeriod().ifPresent(b::shutdownGracePeriod);
        return b.build();
    }
}
