package io.drover.flowable.config;

import io.drover.contract.SettingLimits;
import org.flowable.common.engine.impl.history.HistoryLevel;
import org.flowable.engine.impl.cfg.ProcessEngineConfigurationImpl;
import org.flowable.job.service.impl.asyncexecutor.AsyncJobExecutorConfiguration;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static io.drover.contract.SettingChecks.between;

/**
 * The ExecutorCluster settings as Flowable's async executor properties: the one place that
 * says what each setting means for this engine (docs/engines.md shows the same table).
 *
 * <p>Jobs and timers are acquired by two loops in Flowable; each setting applies to both.
 * Flowable has no SKIP LOCKED acquisition, so that lock mode is refused with the field's name
 * rather than silently replaced.
 */
public final class AsyncExecutorMapping {
    private static final Pattern SCHEMA_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,49}");
    /** Flowable's LOCK_OWNER_ column is varchar(255). */
    private static final int MAX_OWNER = 255;
    private static final Duration LONGEST_SWEEP = Duration.ofSeconds(30);

    private final FlowableSettings s;
    private final boolean global;
    private final String owner;

    private AsyncExecutorMapping(FlowableSettings s, boolean global, String owner) {
        this.s = s;
        this.global = global;
        this.owner = owner;
    }

    /** @throws InvalidSettingsException naming every bad setting */
    public static AsyncExecutorMapping of(FlowableSettings s) {
        List<String> problems = new ArrayList<>();
        boolean global = false;
        // Any case, as the Drover executor reads it (DROVER_LOCKMODE=global outside the operator).
        switch (s.lockMode().toLowerCase(java.util.Locale.ROOT)) {
            case "global" -> global = true;
            case "optimistic" -> global = false;
            case "skiplocked" -> problems.add("lockMode SkipLocked is not available with the Flowable engine (Flowable has no"
                    + " SKIP LOCKED acquisition): use Global (Flowable's global acquire lock) or Optimistic");
            default -> problems.add("lockMode must be Global or Optimistic for the Flowable engine, got '" + s.lockMode() + "'");
        }
        // The ranges the CRD allows (SettingLimits), as the Drover executor checks them.
        between(problems, "threads", s.threads(), 1, SettingLimits.MAX_THREADS);
        between(problems, "queueSize", s.queueSize(), 1, SettingLimits.MAX_QUEUE_SIZE);
        between(problems, "acquirePageSize", s.acquirePageSize(), 1, SettingLimits.MAX_ACQUIRE_PAGE_SIZE);
        if (s.acquirePageSize() > s.queueSize()) {
            problems.add("acquirePageSize (" + s.acquirePageSize() + ") must not exceed queueSize (" + s.queueSize() + ")");
        }
        between(problems, "maxAttempts", s.maxAttempts(), 1, SettingLimits.MAX_ATTEMPTS);
        between(problems, "acquireInterval", s.acquireInterval(), SettingLimits.MIN_DURATION, SettingLimits.MAX_WAIT);
        between(problems, "globalLockWaitTime", s.globalLockWaitTime(), SettingLimits.MIN_DURATION, SettingLimits.MAX_WAIT);
        between(problems, "globalLockPollInterval", s.globalLockPollInterval(), SettingLimits.MIN_DURATION, SettingLimits.MAX_WAIT);
        between(problems, "globalLockMaxHold", s.globalLockMaxHold(), SettingLimits.MIN_DURATION,
                SettingLimits.MAX_GLOBAL_LOCK_MAX_HOLD);
        between(problems, "lockExpiry", s.lockExpiry(), SettingLimits.MIN_LOCK_EXPIRY, SettingLimits.MAX_LOCK_EXPIRY);
        between(problems, "shutdownGracePeriod", s.shutdownGracePeriod(), SettingLimits.MIN_SHUTDOWN_GRACE_PERIOD, null);
        between(problems, "startupTimeout", s.startupTimeout(), SettingLimits.MIN_STARTUP_TIMEOUT, null);
        if (s.retryBackoff().compareTo(Duration.ofSeconds(1)) < 0) {
            problems.add("retryBackoff must be at least 1s for the Flowable engine (it waits whole seconds), got " + s.retryBackoff());
        } else {
            between(problems, "retryBackoff", s.retryBackoff(), "1s", SettingLimits.MAX_FLOWABLE_RETRY_BACKOFF);
        }
        if (!SCHEMA_NAME.matcher(s.schema()).matches()) {
            problems.add("schema must be a lower-case PostgreSQL identifier of at most 50 characters, got '" + s.schema() + "'");
        }
        try {
            HistoryLevel.getHistoryLevelForKey(s.flowable().historyLevel());
        } catch (RuntimeException e) {
            problems.add("flowable.historyLevel must be none, instance, task, activity, audit or full, got '"
                    + s.flowable().historyLevel() + "'");
        }
        String owner = s.nodeName().orElseGet(AsyncExecutorMapping::hostName);
        if (owner.isBlank() || owner.length() > MAX_OWNER) {
            problems.add("nodeName must be 1 to " + MAX_OWNER + " characters, got '" + owner + "'");
        }
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
        return new AsyncExecutorMapping(s, global, owner);
    }

    /** This node's lock owner in Flowable's job tables. */
    public String owner() {
        return owner;
    }

    public boolean globalAcquireLock() {
        return global;
    }

    /** Applies the settings to an engine configuration not built yet. */
    public void applyTo(ProcessEngineConfigurationImpl cfg) {
        // threads: a fixed pool, as the Drover executor's (Flowable's core and max pool sizes).
        cfg.setAsyncExecutorCorePoolSize(s.threads());
        cfg.setAsyncExecutorMaxPoolSize(s.threads());
        cfg.setAsyncExecutorThreadPoolQueueSize(s.queueSize());
        // maxAttempts: Flowable's retries count every run, the first included.
        cfg.setAsyncExecutorNumberOfRetries(s.maxAttempts());
        // retryBackoff: Flowable waits this long before each retry (no doubling), in whole seconds.
        cfg.setAsyncFailedJobWaitTime((int) Math.max(1, s.retryBackoff().toSeconds()));
        cfg.setDefaultFailedJobWaitTime((int) Math.max(1, s.retryBackoff().toSeconds())); // timers' retries
        cfg.setAsyncExecutorSecondsToWaitOnShutdown(s.shutdownGracePeriod().toSeconds());
        cfg.setHistory(s.flowable().historyLevel());

        AsyncJobExecutorConfiguration a = cfg.getAsyncExecutorConfiguration();
        a.setMaxAsyncJobsDuePerAcquisition(s.acquirePageSize());
        a.setMaxTimerJobsPerAcquisition(s.acquirePageSize());
        a.setDefaultAsyncJobAcquireWaitTime(s.acquireInterval());
        a.setDefaultTimerJobAcquireWaitTime(s.acquireInterval());
        a.setGlobalAcquireLockEnabled(global);
        a.setAsyncJobsGlobalLockWaitTime(s.globalLockWaitTime());
        a.setTimerLockWaitTime(s.globalLockWaitTime());
        a.setAsyncJobsGlobalLockPollRate(s.globalLockPollInterval());
        a.setTimerLockPollRate(s.globalLockPollInterval());
        // globalLockMaxHold: how long a holder keeps the lock before the others take it over.
        a.setAsyncJobsGlobalLockForceAcquireAfter(s.globalLockMaxHold());
        a.setTimerLockForceAcquireAfter(s.globalLockMaxHold());
        a.setAsyncJobLockTime(s.lockExpiry());
        a.setTimerLockTime(s.lockExpiry());
        // A dead node's jobs are found as the Drover executor finds them: every lockExpiry/2, at
        // most 30 s (Flowable's default is 1 minute).
        Duration half = s.lockExpiry().dividedBy(2);
        a.setResetExpiredJobsInterval(half.compareTo(LONGEST_SWEEP) < 0 ? half : LONGEST_SWEEP);
        // A stable owner (the pod name) lets a restarted node free the jobs its predecessor held.
        a.setLockOwner(owner);
        a.setUnlockOwnedJobs(true);
    }

    /**
     * The pod name, with its namespace when the pod says it (POD_NAMESPACE, set by the operator):
     * two clusters of the same name in two namespaces may share a schema, and a node frees the
     * jobs of its own owner at start-up.
     */
    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            String namespace = System.getenv("POD_NAMESPACE");
            return namespace == null || namespace.isBlank() ? env : namespace + "/" + env;
        }
        try {
            return InetAddress.getLocalHost().getHostName() + "-" + ProcessHandle.current().pid();
        } catch (Exception e) {
            return "flowable-" + ProcessHandle.current().pid();
        }
    }
}
