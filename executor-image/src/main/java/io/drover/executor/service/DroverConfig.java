package io.drover.executor.service;

import io.drover.contract.SettingDefaults;
import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;

import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.Optional;

/**
 * The executor's settings as Quarkus configuration: {@code drover.<name>} in
 * application.properties, or env {@code DROVER_<NAME>} (e.g. DROVER_QUEUESIZE). Names are kept
 * verbatim (camelCase) so they read the same as in the ExecutorCluster spec and Helm values.
 * Every engine setting is optional here: the builder ({@code ExecutorSettings.Builder}) applies
 * its default, declared in {@link SettingDefaults} with those the operator states.
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

    Optional<Duration> jobTimeout();

    /** Per-type jobTimeout, a JSON object of job type to duration: {@code {"report": "2h", "http": "30s"}}. */
    Optional<String> jobTimeouts();

    Optional<Integer> maxCrashes();

    /**
     * How long a starting node keeps trying to reach the database and migrate its schema (with
     * back-off) before it exits with the cause. Meanwhile it is alive but not ready, so a
     * database failover or restart during a roll does not turn into CrashLoopBackOff.
     */
    @WithDefault(SettingDefaults.STARTUP_TIMEOUT)
    Duration startupTimeout();

    /**
     * Where a node that cannot start writes "Reason: cause" (e.g. "DatabaseAuthenticationFailed:
     * ..."): the container's termination message file, which the kubelet copies into the pod's
     * status for the operator to read.
     */
    @WithDefault("/dev/termination-log")
    java.nio.file.Path terminationMessagePath();

    /** Set false to run the service without executing jobs (e.g. an API-only deployment). */
    @WithDefault("true")
    boolean enabled();

    /** Jars with user handlers (ServiceLoader), loaded at startup if the directory exists. */
    @WithDefault("/app/handlers")
    java.nio.file.Path handlersDir();

    /** How often the drover_due_backlog gauge is refreshed from the database. */
    @WithDefault("5s")
    Duration backlogRefreshInterval();

    Http http();

    Api api();

    /** The built-in {@code http} handler. */
    interface Http {
        /**
         * Where http jobs POST their payload when it names no "url" of its own. Text, checked by
         * HttpHandler.settingProblems: mapped as a URI, one that did not parse failed with a
         * message quoting it whole, a secret in its query with it.
         */
        Optional<String> url();

        /**
         * Hosts a URL given in an http job's payload may point at (besides the host of
         * {@code url}): names, {@code name:port}, or {@code *.suffix}. Empty: payload URLs may
         * only point at the host of {@code url}.
         */
        Optional<java.util.List<String>> allowedHosts();

        /** Connect and response timeout of one http job. */
        @WithDefault("10s")
        Duration timeout();
    }

    /** The HTTP API under /api/v1: closed unless a token is set. */
    interface Api {
        /** Bearer token that may read and write (from a Secret, as env DROVER_API_TOKEN). */
        Optional<String> token();

        /** Bearer token that may only read (from a Secret, as env DROVER_API_READTOKEN). */
        Optional<String> readToken();

        /** Most jobs accepted in one batch enqueue call. */
        @WithDefault("10000")
        int maxBatch();

        /**
         * Most bytes of request bodies the node reads at once; a call past it is answered 503
         * with Retry-After. Default: an eighth of the heap, and never less than the body limit.
         */
        Optional<MemorySize> maxBodyBytesInFlight();
    }
}
