package io.drover.contract;

/**
 * The executor settings' ranges, declared once, where {@link SettingDefaults} declares their
 * defaults: the CRD refuses a spec outside them (its schema's bounds and CEL rules are built from
 * these constants), and the executor refuses the same values at startup ({@code ExecutorSettings}),
 * since a node can be configured without the operator (env {@code DROVER_*}), so that a setting
 * the operator would never write cannot start a node that then fails on every job or statement.
 * Durations are text in the form both readers accept ({@link SettingDefaults}).
 */
public final class SettingLimits {
    public static final int MAX_THREADS = 4096;
    public static final int MAX_QUEUE_SIZE = 1_000_000;
    public static final int MAX_ACQUIRE_PAGE_SIZE = 100_000;
    public static final int MAX_COMPLETION_BATCH_SIZE = 100_000;
    /** Also the most a job may ask for through the API: a node's default must be a value the API accepts. */
    public static final int MAX_ATTEMPTS = 1000;
    public static final int MAX_CRASHES = 100;
    /** The shortest duration of any setting: the engine sleeps and polls in milliseconds. */
    public static final String MIN_DURATION = "1ms";
    /** Locks are renewed every lockExpiry/4; below a second of renewal period a slow round trip could let a live node's locks lapse. */
    public static final String MIN_LOCK_EXPIRY = "4s";
    /**
     * The longest lockExpiry and globalLockMaxHold: both become PostgreSQL {@code statement_timeout}s
     * (half of lockExpiry for the engine's connections), which take at most 2^31-1 ms (596 h); and
     * a dead node's jobs wait lockExpiry before another node takes them over.
     */
    public static final String MAX_LOCK_EXPIRY = "24h";
    public static final String MAX_GLOBAL_LOCK_MAX_HOLD = "24h";
    /**
     * The longest acquireInterval, globalLockWaitTime and globalLockPollInterval: liveness allows
     * a loop twice the longest of them before it calls the node stuck, and that sum in nanoseconds
     * overflowed past about 146 years (every probe failed, naming nothing); Flowable reads its
     * acquisition wait as int milliseconds (596 h). No node needs to sleep or wait a day.
     */
    public static final String MAX_WAIT = "24h";
    /** The longest retryBackoff with engine Flowable: it waits int seconds (2^31-1 s is 596,523 h 14 min). */
    public static final String MAX_FLOWABLE_RETRY_BACKOFF = "596523h";
    /** A stopping node needs a moment to hand back its queue and write its last outcomes. */
    public static final String MIN_SHUTDOWN_GRACE_PERIOD = "1s";
    public static final String MIN_STARTUP_TIMEOUT = "1s";

    private SettingLimits() {
    }
}
