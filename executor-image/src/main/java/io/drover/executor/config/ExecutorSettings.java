package io.drover.executor.config;

import io.drover.contract.SettingDefaults;
import io.drover.contract.SettingLimits;
import io.drover.executor.acquire.LockMode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static io.drover.contract.SettingChecks.between;

/**
 * Everything that tunes one executor node. The component names are the setting names used
 * everywhere (executor config {@code drover.<name>}, env {@code DROVER_<NAME>}, the
 * ExecutorCluster spec and the Helm values); docs/configuration.md explains each default.
 */
public record ExecutorSettings(
        String nodeName,
        String schema,
        LockMode lockMode,
        int threads,
        boolean virtualThreads,
        int queueSize,
        int acquirePageSize,
        Duration acquireInterval,
        Duration globalLockWaitTime,
        Duration globalLockPollInterval,
        Duration globalLockMaxHold,
        Duration lockExpiry,
        int maxAttempts,
        Duration retryBackoff,
        Duration retryBackoffMax,
        int completionBatchSize,
        Duration shutdownGracePeriod,
        Duration jobTimeout,
        Map<String, Duration> jobTimeouts,
        int maxCrashes) {

    // At most 50 characters: the notification channel "drover_<schema>" must fit PostgreSQL's
    // 63-byte identifier limit.
    private static final Pattern SCHEMA_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,49}");

    public ExecutorSettings {
        List<String> errors = new ArrayList<>();
        if (nodeName == null || nodeName.isBlank() || nodeName.contains(":")) {
            errors.add("nodeName must be non-empty and must not contain ':' (got '" + nodeName + "')");
        }
        if (schema == null || !SCHEMA_NAME.matcher(schema).matches()) {
            errors.add("schema must be a lower-case SQL identifier of at most 50 characters ([a-z_][a-z0-9_]*), got '"
                    + schema + "'");
        }
        if (lockMode == null) {
            errors.add("lockMode must be one of Global, Optimistic, SkipLocked");
        }
        // The ranges the CRD allows (SettingLimits): a node configured without the operator gets
        // the same refusals, naming the setting, instead of failing later on every job or statement.
        between(errors, "threads", threads, 1, SettingLimits.MAX_THREADS);
        between(errors, "queueSize", queueSize, 1, SettingLimits.MAX_QUEUE_SIZE);
        between(errors, "acquirePageSize", acquirePageSize, 1, SettingLimits.MAX_ACQUIRE_PAGE_SIZE);
        between(errors, "maxAttempts", maxAttempts, 1, SettingLimits.MAX_ATTEMPTS);
        between(errors, "completionBatchSize", completionBatchSize, 1, SettingLimits.MAX_COMPLETION_BATCH_SIZE);
        between(errors, "maxCrashes", maxCrashes, 1, SettingLimits.MAX_CRASHES);
        between(errors, "acquireInterval", acquireInterval, SettingLimits.MIN_DURATION, SettingLimits.MAX_WAIT);
        between(errors, "globalLockWaitTime", globalLockWaitTime, SettingLimits.MIN_DURATION, SettingLimits.MAX_WAIT);
        between(errors, "globalLockPollInterval", globalLockPollInterval, SettingLimits.MIN_DURATION, SettingLimits.MAX_WAIT);
        between(errors, "globalLockMaxHold", globalLockMaxHold, SettingLimits.MIN_DURATION, SettingLimits.MAX_GLOBAL_LOCK_MAX_HOLD);
        between(errors, "lockExpiry", lockExpiry, SettingLimits.MIN_LOCK_EXPIRY, SettingLimits.MAX_LOCK_EXPIRY);
        positive(errors, "retryBackoff", retryBackoff);
        positive(errors, "retryBackoffMax", retryBackoffMax);
        between(errors, "shutdownGracePeriod", shutdownGracePeriod, SettingLimits.MIN_SHUTDOWN_GRACE_PERIOD, null);
        positive(errors, "jobTimeout", jobTimeout);
        if (jobTimeouts == null) {
            errors.add("jobTimeouts must be a map of job type to duration (empty for none)");
        } else {
            jobTimeouts.forEach((type, timeout) -> positive(errors, "jobTimeouts[" + type + "]", timeout));
            jobTimeouts = Collections.unmodifiableMap(new java.util.LinkedHashMap<>(jobTimeouts));
        }
        if (retryBackoff != null && retryBackoffMax != null && retryBackoff.compareTo(retryBackoffMax) > 0) {
            errors.add("retryBackoff (" + retryBackoff + ") must not exceed retryBackoffMax (" + retryBackoffMax + ")");
        }
        if (acquirePageSize > queueSize && queueSize >= 1) {
            errors.add("acquirePageSize (" + acquirePageSize + ") must not exceed queueSize (" + queueSize
                    + "): a node never acquires more jobs than its queue can hold");
        }
        if (!errors.isEmpty()) {
            throw new InvalidSettingsException(errors);
        }
    }

    /**
     * At least a millisecond: the engine sleeps and polls in milliseconds, so a shorter
     * duration rounds to zero (an acquireInterval of 0.5ms would make the acquirer wait forever).
     * At most the longest duration Kubernetes writes (Go's, about 292 years): the engine counts
     * deadlines in nanoseconds, which a longer one would overflow.
     */
    private static void positive(List<String> errors, String name, Duration value) {
        between(errors, name, value, SettingLimits.MIN_DURATION, null);
    }

    /** The jobTimeout of a job type: its own entry in jobTimeouts, else jobTimeout. */
    public Duration jobTimeout(String type) {
        return jobTimeouts.getOrDefault(type, jobTimeout);
    }

    /**
     * How long an engine statement may wait for the database before its connection is given up
     * (the JDBC socket timeout of the engine's connections): half of lockExpiry, so a call that
     * hangs on a half-open connection after a failover is abandoned, and renewed on a fresh
     * connection, before the node's locks run out.
     */
    public Duration databaseTimeout() {
        return lockExpiry.dividedBy(2);
    }

    /**
     * How long a lock is certainly this node's after the statement that took or renewed it was
     * sent: lockExpiry less a margin for clock rate drift and scheduling (an eighth).
     */
    public Duration lease() {
        return lockExpiry.minus(lockExpiry.dividedBy(8));
    }

    /**
     * How long one of the engine's loops may go without progress before the node counts as stuck
     * (liveness fails and the pod restarts): long enough for its longest legitimate wait (an idle
     * acquisition interval, a global lock wait, a database call up to its timeout, twice).
     */
    public Duration stallTimeout() {
        Duration longest = Collections.max(List.of(acquireInterval, globalLockWaitTime, lockExpiry));
        return longest.plus(databaseTimeout()).multipliedBy(2).plusSeconds(30);
    }

    /**
     * How long a node holds back its sweeps after a database failure it saw, and after it starts:
     * until every live node has renewed its locks, which an outage let expire all at once. A live
     * node's renewal may have been sent on a connection the outage left half-open: it fails only
     * at {@link #databaseTimeout}, and the next one goes a second later on another connection
     * (a renewal interval later until 2026-11-27, whose margin this keeps, and a node of an older
     * version may still run). So: that timeout, two renewal intervals (one spare), and 5 s for a stale pooled
     * connection to be found out and a new one opened. (It was two intervals and 5 s, 35 s at the
     * default lockExpiry: a node whose renewal hung renewed at up to 45 s, after another had swept
     * its running jobs.)
     */
    public Duration sweepQuietPeriod() {
        return databaseTimeout().plus(lockRenewInterval().multipliedBy(2)).plusSeconds(5);
    }

    /** How often a node extends the expiry of the locks it holds. */
    public Duration lockRenewInterval() {
        return lockExpiry.dividedBy(4);
    }

    /** How often a node looks for locks that expired because their node died. */
    public Duration expiredLockSweepInterval() {
        Duration half = lockExpiry.dividedBy(2);
        return half.compareTo(Duration.ofSeconds(30)) < 0 ? half : Duration.ofSeconds(30);
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Defaults: declared in {@link SettingDefaults}; docs/configuration.md gives the reasoning behind each. */
    public static final class Builder {
        private String nodeName = NodeNames.defaultNodeName();
        private String schema = SettingDefaults.SCHEMA;
        private LockMode lockMode = LockMode.valueOf(SettingDefaults.LOCK_MODE);
        private int threads = Integer.parseInt(SettingDefaults.THREADS);
        private boolean virtualThreads = Boolean.parseBoolean(SettingDefaults.VIRTUAL_THREADS);
        private int queueSize = Integer.parseInt(SettingDefaults.QUEUE_SIZE);
        private int acquirePageSize = Integer.parseInt(SettingDefaults.ACQUIRE_PAGE_SIZE);
        private Duration acquireInterval = Durations.parse("acquireInterval", SettingDefaults.ACQUIRE_INTERVAL);
        private Duration globalLockWaitTime = Durations.parse("globalLockWaitTime", SettingDefaults.GLOBAL_LOCK_WAIT_TIME);
        private Duration globalLockPollInterval = Durations.parse("globalLockPollInterval", SettingDefaults.GLOBAL_LOCK_POLL_INTERVAL);
        private Duration globalLockMaxHold = Durations.parse("globalLockMaxHold", SettingDefaults.GLOBAL_LOCK_MAX_HOLD);
        private Duration lockExpiry = Durations.parse("lockExpiry", SettingDefaults.LOCK_EXPIRY);
        private int maxAttempts = Integer.parseInt(SettingDefaults.MAX_ATTEMPTS);
        private Duration retryBackoff = Durations.parse("retryBackoff", SettingDefaults.RETRY_BACKOFF);
        private Duration retryBackoffMax = Durations.parse("retryBackoffMax", SettingDefaults.RETRY_BACKOFF_MAX);
        private int completionBatchSize = Integer.parseInt(SettingDefaults.COMPLETION_BATCH_SIZE);
        private Duration shutdownGracePeriod = Durations.parse("shutdownGracePeriod", SettingDefaults.SHUTDOWN_GRACE_PERIOD);
        private Duration jobTimeout = Durations.parse("jobTimeout", SettingDefaults.JOB_TIMEOUT);
        private Map<String, Duration> jobTimeouts = Map.of();
        private int maxCrashes = Integer.parseInt(SettingDefaults.MAX_CRASHES);

        private Builder() {
        }

        private Builder(ExecutorSettings s) {
            nodeName = s.nodeName;
            schema = s.schema;
            lockMode = s.lockMode;
            threads = s.threads;
            virtualThreads = s.virtualThreads;
            queueSize = s.queueSize;
            acquirePageSize = s.acquirePageSize;
            acquireInterval = s.acquireInterval;
            globalLockWaitTime = s.globalLockWaitTime;
            globalLockPollInterval = s.globalLockPollInterval;
            globalLockMaxHold = s.globalLockMaxHold;
            lockExpiry = s.lockExpiry;
            maxAttempts = s.maxAttempts;
            retryBackoff = s.retryBackoff;
            retryBackoffMax = s.retryBackoffMax;
            completionBatchSize = s.completionBatchSize;
            shutdownGracePeriod = s.shutdownGracePeriod;
            jobTimeout = s.jobTimeout;
            jobTimeouts = s.jobTimeouts;
            maxCrashes = s.maxCrashes;
        }

        public Builder nodeName(String v) { nodeName = v; return this; }
        public Builder schema(String v) { schema = v; return this; }
        public Builder lockMode(LockMode v) { lockMode = v; return this; }
        public Builder threads(int v) { threads = v; return this; }
        public Builder virtualThreads(boolean v) { virtualThreads = v; return this; }
        public Builder queueSize(int v) { queueSize = v; return this; }
        public Builder acquirePageSize(int v) { acquirePageSize = v; return this; }
        public Builder acquireInterval(Duration v) { acquireInterval = v; return this; }
        public Builder globalLockWaitTime(Duration v) { globalLockWaitTime = v; return this; }
        public Builder globalLockPollInterval(Duration v) { globalLockPollInterval = v; return this; }
        public Builder globalLockMaxHold(Duration v) { globalLockMaxHold = v; return this; }
        public Builder lockExpiry(Duration v) { lockExpiry = v; return this; }
        public Builder maxAttempts(int v) { maxAttempts = v; return this; }
        public Builder retryBackoff(Duration v) { retryBackoff = v; return this; }
        public Builder retryBackoffMax(Duration v) { retryBackoffMax = v; return this; }
        public Builder completionBatchSize(int v) { completionBatchSize = v; return this; }
        public Builder shutdownGracePeriod(Duration v) { shutdownGracePeriod = v; return this; }
        public Builder jobTimeout(Duration v) { jobTimeout = v; return this; }
        public Builder jobTimeouts(Map<String, Duration> v) { jobTimeouts = v; return this; }
        public Builder maxCrashes(int v) { maxCrashes = v; return this; }

        public ExecutorSettings build() {
            return new ExecutorSettings(nodeName, schema, lockMode, threads, virtualThreads, queueSize,
                    acquirePageSize, acquireInterval, globalLockWaitTime, globalLockPollInterval,
                    globalLockMaxHold, lockExpiry, maxAttempts, retryBackoff, retryBackoffMax,
                    completionBatchSize, shutdownGracePeriod, jobTimeout, jobTimeouts, maxCrashes);
        }
    }
}
