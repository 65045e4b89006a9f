package io.drover.executor.service;

import io.drover.contract.SettingChecks;
import io.drover.contract.SettingLimits;
import io.drover.executor.acquire.LockMode;
import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.config.InvalidSettingsException;
import io.drover.executor.config.JobTimeouts;
import io.drover.executor.handler.HttpHandler;

import java.util.ArrayList;
import java.util.List;

/** Turns Quarkus configuration into validated {@link ExecutorSettings}. */
final class SettingsFactory {
    private SettingsFactory() {
    }

    /** @throws InvalidSettingsException naming every bad setting, not just the first */
    static ExecutorSettings from(DroverConfig c) {
        List<String> problems = new ArrayList<>();
        ExecutorSettings.Builder b = ExecutorSettings.builder();
        c.nodeName().ifPresent(b::nodeName);
        c.schema().ifPresent(b::schema);
        if (c.lockMode().isPresent()) {
            try {
                b.lockMode(LockMode.parse(c.lockMode().get()));
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
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
        c.jobTimeout().ifPresent(b::jobTimeout);
        c.maxCrashes().ifPresent(b::maxCrashes);
        if (c.jobTimeouts().isPresent()) {
            try {
                b.jobTimeouts(JobTimeouts.parse(c.jobTimeouts().get()));
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
        // Not an engine setting, but refused as the CRD refuses it: a node given 0s would give up
        // on its database at the first refused connection.
        SettingChecks.between(problems, "startupTimeout", c.startupTimeout(), SettingLimits.MIN_STARTUP_TIMEOUT, null);
        // The gauge's refresh is scheduled with it: 0s or less ended the start-up with the
        // scheduler's bare IllegalArgumentException, naming no setting.
        SettingChecks.between(problems, "backlogRefreshInterval", c.backlogRefreshInterval(), SettingLimits.MIN_DURATION, null);
        problems.addAll(HttpHandler.settingProblems(c.http().url(), c.http().timeout(), c.http().allowedHosts().orElse(java.util.List.of())));
        // Not an engine setting either: at 0 the node started, and refused every batch enqueue call.
        SettingChecks.between(problems, "api.maxBatch", c.api().maxBatch(), 1, Integer.MAX_VALUE);
        try {
            ExecutorSettings settings = b.build();
            if (problems.isEmpty()) {
                return settings;
            }
        } catch (InvalidSettingsException e) {
            problems.addAll(e.problems());
        }
        throw new InvalidSettingsException(problems);
    }
}
