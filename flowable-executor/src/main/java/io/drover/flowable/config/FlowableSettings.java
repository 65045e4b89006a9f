package io.drover.flowable.config;

import io.drover.contract.SettingDefaults;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The ExecutorCluster settings this engine honours, under the names and defaults every engine
 * shares ({@code drover.<name>}, env {@code DROVER_<NAME>}, defaults from {@link SettingDefaults}),
 * so the operator configures a Flowable fleet exactly as a Drover one. {@link AsyncExecutorMapping}
 * turns them into Flowable's async executor properties (docs/engines.md has the table). The
 * settings Flowable has no equivalent for are refused by the CRD for this engine.
 */
@ConfigMapping(prefix = "drover", namingStrategy = ConfigMapping.NamingStrategy.VERBATIM)
public interface FlowableSettings {
    /** The lock owner: the pod name, stable across restarts, so a restarted node frees its own jobs at once. */
    Optional<String> nodeName();

    /** PostgreSQL schema of Flowable's tables (the connections' search_path). */
    @WithDefault(SettingDefaults.SCHEMA)
    String schema();

    /** Global (Flowable's global acquire lock) or Optimistic (its default); SkipLocked does not exist in Flowable. */
    @WithDefault(SettingDefaults.LOCK_MODE)
    String lockMode();

    @WithDefault(SettingDefaults.THREADS)
    int threads();

    @WithDefault(SettingDefaults.QUEUE_SIZE)
    int queueSize();

    @WithDefault(SettingDefaults.ACQUIRE_PAGE_SIZE)
    int acquirePageSize();

    @WithDefault(SettingDefaults.ACQUIRE_INTERVAL)
    Duration acquireInterval();

    @WithDefault(SettingDefaults.GLOBAL_LOCK_WAIT_TIME)
    Duration globalLockWaitTime();

    @WithDefault(SettingDefaults.GLOBAL_LOCK_POLL_INTERVAL)
    Duration globalLockPollInterval();

    @WithDefault(SettingDefaults.GLOBAL_LOCK_MAX_HOLD)
    Duration globalLockMaxHold();

    @WithDefault(SettingDefaults.LOCK_EXPIRY)
    Duration lockExpiry();

    @WithDefault(SettingDefaults.MAX_ATTEMPTS)
    int maxAttempts();

    @WithDefault(SettingDefaults.RETRY_BACKOFF)
    Duration retryBackoff();

    @WithDefault(SettingDefaults.SHUTDOWN_GRACE_PERIOD)
    Duration shutdownGracePeriod();

    @WithDefault(SettingDefaults.STARTUP_TIMEOUT)
    Duration startupTimeout();

    /** {@code false} runs the engine without its async executor (process instances can still be started). */
    @WithDefault("true")
    boolean enabled();

    Flowable flowable();

    /** What only this engine has. */
    interface Flowable {
        /** Flowable's history level: none, instance, task, activity, audit (Flowable's default) or full. */
        @WithDefault("audit")
        String historyLevel();

        /**
         * Process definitions (*.bpmn20.xml, *.bpmn) and the jars of their delegates, deployed and
         * loaded at start-up: how a user's image adds its processes to this one.
         */
        @WithDefault("/app/processes")
        Path processesDir();
    }
}
