package io.drover.contract;

/**
 * The executor settings' defaults, declared once. The executor applies them
 * ({@code ExecutorSettings.Builder}, {@code DroverConfig}); the operator's CRD states them (a
 * schema default, or "Executor default X." in a field's description, built from these constants);
 * docs/configuration.md is the contract both are tested against (ConfigurationDocsTest,
 * CrdDocsTest). So changing a default is an edit here and in that table, and the build fails
 * until the generated CRD follows ({@code make crds}).
 *
 * <p>Each value is text in the one form every reader accepts: durations as a number and a unit
 * ({@code 1s}, {@code 20ms}, {@code 10m}), which is Go's syntax for the CRD's CEL rules and the
 * Quarkus converter's short form for the executor. Text, not numbers, because annotation values
 * ({@code @Default}, {@code @WithDefault}, descriptions) must be constant strings.
 */
public final class SettingDefaults {
    public static final String LOCK_MODE = "SkipLocked";
    public static final String THREADS = "8";
    public static final String VIRTUAL_THREADS = "false";
    public static final String QUEUE_SIZE = "1024";
    public static final String ACQUIRE_PAGE_SIZE = "256";
    public static final String ACQUIRE_INTERVAL = "1s";
    public static final String GLOBAL_LOCK_WAIT_TIME = "10s";
    public static final String GLOBAL_LOCK_POLL_INTERVAL = "20ms";
    public static final String GLOBAL_LOCK_MAX_HOLD = "10s";
    public static final String LOCK_EXPIRY = "60s";
    public static final String MAX_ATTEMPTS = "3";
    public static final String MAX_CRASHES = "3";
    public static final String RETRY_BACKOFF = "1s";
    public static final String RETRY_BACKOFF_MAX = "10m";
    public static final String COMPLETION_BATCH_SIZE = "500";
    public static final String SHUTDOWN_GRACE_PERIOD = "30s";
    public static final String JOB_TIMEOUT = "15m";
    public static final String SCHEMA = "drover";
    public static final String STARTUP_TIMEOUT = "5m";
    /**
     * Connections of a node's shared pool (handlers, API, gauges): Quarkus'
     * {@code quarkus.datasource.jdbc.max-size}, set in the executor's application.properties,
     * which cannot name this constant (ConfigurationDocsTest holds them equal); the CRD's
     * {@code database.maxPoolSize} states it.
     */
    public static final String POOL_SIZE = "20";
    /**
     * The engine's own connections, beside the shared pool, on every node: acquisition, start
     * marks, completion, renewal, sweep, the node's session, and one for start-up and shutdown
     * work. Not a setting; the CRD's {@code database.maxPoolSize} states it, for budgeting
     * {@code max_connections}.
     */
    public static final int ENGINE_POOL_SIZE = 7;

    private SettingDefaults() {
    }
}
