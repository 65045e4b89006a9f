package io.drover.operator.resources;

import io.drover.contract.FlowablePool;
import io.drover.contract.SettingDefaults;
import io.drover.operator.api.v1alpha1.DatabaseSpec;
import io.drover.operator.api.v1alpha1.Engine;
import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.api.v1alpha1.ExecutorClusterSpec;
import io.fabric8.kubernetes.client.utils.Serialization;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The executor's configuration as environment variables of its pod template: {@code DROVER_<NAME>}
 * for each executor setting the spec sets (the executor reads the same names), and the JDBC URL.
 * In the template, not a ConfigMap every revision's pods read: a container that restarts in a
 * pod not yet rolled keeps its revision's settings. Secrets never go here: user name, password
 * and API token are secretKeyRef env vars of the pod.
 */
public final class ExecutorEnvironment {
    private ExecutorEnvironment() {
    }

    /** Executor settings by their one name (docs/configuration.md); unset ones are left out. */
    public static Map<String, String> settings(ExecutorClusterSpec s) {
        Map<String, String> m = new LinkedHashMap<>();
        put(m, "lockMode", s.lockMode == null ? null : s.lockMode.name());
        put(m, "threads", s.threads);
        put(m, "virtualThreads", s.virtualThreads);
        put(m, "queueSize", s.queueSize);
        put(m, "acquirePageSize", s.acquirePageSize);
        putDuration(m, "acquireInterval", s.acquireInterval);
        putDuration(m, "globalLockWaitTime", s.globalLockWaitTime);
        putDuration(m, "globalLockPollInterval", s.globalLockPollInterval);
        putDuration(m, "globalLockMaxHold", s.globalLockMaxHold);
        putDuration(m, "lockExpiry", s.lockExpiry);
        put(m, "maxAttempts", s.maxAttempts);
        putDuration(m, "retryBackoff", s.retryBackoff);
        putDuration(m, "retryBackoffMax", s.retryBackoffMax);
        put(m, "completionBatchSize", s.completionBatchSize);
        putDuration(m, "shutdownGracePeriod", s.shutdownGracePeriod);
        put(m, "shutdownGracePeriod", GracePeriods.derivedShutdownGracePeriod(s));
        putDuration(m, "jobTimeout", s.jobTimeout);
        put(m, "jobTimeout", GracePeriods.derivedJobTimeout(s));
        if (s.jobTimeouts != null && !s.jobTimeouts.isEmpty()) {
            // The executor reads a JSON object of job type to duration; keys sorted, so the
            // config hash only changes when the content does.
            Map<String, String> iso = new TreeMap<>();
            s.jobTimeouts.forEach((type, d) -> iso.put(type, KubeDurations.parse(d).toString()));
            m.put("jobTimeouts", Serialization.asJson(iso));
        }
        put(m, "maxCrashes", s.maxCrashes);
        putDuration(m, "startupTimeout", s.startupTimeout);
        put(m, "schema", s.schema);
        return m;
    }

    public static Map<String, String> environment(ExecutorClusterSpec spec) {
        Map<String, String> env = new TreeMap<>();
        settings(spec).forEach((name, value) -> env.put("DROVER_" + name.toUpperCase(java.util.Locale.ROOT), value));
        DatabaseSpec db = spec.database;
        env.put("QUARKUS_DATASOURCE_JDBC_URL", jdbcUrl(db));
        if (db.maxPoolSize != null) {
            env.put("QUARKUS_DATASOURCE_JDBC_MAX_SIZE", db.maxPoolSize.toString());
        } else if (spec.engine == Engine.Flowable) {
            // Each running Flowable job holds a connection: the pool follows the threads.
            int threads = spec.threads == null ? Integer.parseInt(SettingDefaults.THREADS) : spec.threads;
            env.put("QUARKUS_DATASOURCE_JDBC_MAX_SIZE",
                    Integer.toString(Math.max(Integer.parseInt(SettingDefaults.POOL_SIZE), FlowablePool.minimumFor(threads))));
        }
        return env;
    }

    public static String jdbcUrl(DatabaseSpec db) {
        return "jdbc:postgresql://" + db.host + ":" + db.portOrDefault() + "/" + db.name
                + "?sslmode=" + sslMode(db)
                + DatabaseCa.path(db).map(path -> "&sslrootcert=" + path).orElse("")
                + "&ApplicationName=drover-executor";
    }

    /** As the CRD defaults it, for objects built in code: encrypted unless disabled in writing. */
    public static String sslMode(DatabaseSpec db) {
        return db.sslModeOrDefault();
    }

    private static void put(Map<String, String> m, String name, Object value) {
        if (value != null) {
            m.put(name, value.toString());
        }
    }

    private static void putDuration(Map<String, String> m, String name, String value) {
        if (value != null) {
            m.put(name, KubeDurations.parse(value).toString());
        }
    }
}
