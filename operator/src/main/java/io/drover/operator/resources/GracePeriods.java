package io.drover.operator.resources;

import io.drover.contract.SettingChecks;
import io.drover.contract.SettingDefaults;
import io.drover.operator.api.v1alpha1.Engine;
import io.drover.operator.api.v1alpha1.ExecutorClusterSpec;

import java.time.Duration;

/**
 * How long a stopping executor node gets, derived in one place from what the user declares.
 * A node that is asked to stop (scale-down, roll, drain, eviction) stops acquiring, hands its
 * queued jobs back at once, and lets its running jobs finish for shutdownGracePeriod; the pod
 * must outlive that (terminationGracePeriodSeconds), or the kubelet kills the jobs it just let
 * run. With {@code maxJobDuration} set, both follow it, and so does jobTimeout. Without it, on
 * engine Drover, they follow the longest job timeout (jobTimeout, default 15m, and every
 * jobTimeouts entry): either way a scale-down, roll or drain never cuts a running job. (The
 * executor's own default of 30s cut every job longer than that and ran it again elsewhere.)
 * Flowable has no job timeout: without maxJobDuration it keeps the executor's 30s.
 */
public final class GracePeriods {
    /** The executor's own default shutdownGracePeriod. */
    static final Duration EXECUTOR_SHUTDOWN_GRACE = KubeDurations.parse(SettingDefaults.SHUTDOWN_GRACE_PERIOD);
    /** Beyond maxJobDuration: a job that started just before the stop has time to finish. */
    static final Duration SHUTDOWN_MARGIN = Duration.ofSeconds(10);
    /** Beyond shutdownGracePeriod: writing the last outcomes (up to 10 s) and stopping the JVM. */
    static final Duration TERMINATION_MARGIN = Duration.ofSeconds(30);

    private GracePeriods() {
    }

    /** Beyond shutdownGracePeriod when the user set terminationGracePeriodSeconds: the CRD's least margin. */
    static final Duration LEAST_TERMINATION_MARGIN = Duration.ofSeconds(10);

    /**
     * The shutdownGracePeriod to give the executor when the spec leaves it out: maxJobDuration
     * plus 10s; else, on engine Drover, the longest job timeout plus 10s, within a
     * terminationGracePeriodSeconds the user set; else null (the executor's default).
     */
    public static Duration derivedShutdownGracePeriod(ExecutorClusterSpec s) {
        if (s.shutdownGracePeriod != null) {
            return null;
        }
        if (s.maxJobDuration != null) {
            return KubeDurations.parse(s.maxJobDuration).plus(SHUTDOWN_MARGIN);
        }
        if (s.engine == Engine.Flowable) {
            return null;
        }
        Duration derived = longestJobTimeout(s).plus(SHUTDOWN_MARGIN);
        Duration longestSetting = KubeDurations.parse(SettingChecks.LONGEST);
        if (derived.compareTo(longestSetting) > 0) {
            derived = longestSetting; // the executor takes no longer duration
        }
        if (s.terminationGracePeriodSeconds != null) {
            // The pod is killed then whatever the node waits for: it must stop waiting in time to
            // write its last outcomes (the CRD keeps this at least the executor's 30s default).
            Duration within = Duration.ofSeconds(s.terminationGracePeriodSeconds).minus(LEAST_TERMINATION_MARGIN);
            if (within.compareTo(derived) < 0) {
                derived = within;
            }
        }
        return derived;
    }

    /** The longest a job may run on engine Drover: jobTimeout (the executor's default if unset) and every jobTimeouts entry. */
    static Duration longestJobTimeout(ExecutorClusterSpec s) {
        Duration longest = KubeDurations.parse(s.jobTimeout != null ? s.jobTimeout : SettingDefaults.JOB_TIMEOUT);
        if (s.jobTimeouts != null) {
            for (String timeout : s.jobTimeouts.values()) {
                Duration d = KubeDurations.parse(timeout);
                if (d.compareTo(longest) > 0) {
                    longest = d;
                }
            }
        }
        return longest;
    }

    /**
     * The jobTimeout to give the executor when the spec leaves it to maxJobDuration, else null.
     * None for engine Flowable, which has no job timeout: it would read no such setting.
     */
    public static Duration derivedJobTimeout(ExecutorClusterSpec s) {
        return s.jobTimeout == null && s.maxJobDuration != null && s.engine != Engine.Flowable
                ? KubeDurations.parse(s.maxJobDuration) : null;
    }

    static Duration shutdownGracePeriod(ExecutorClusterSpec s) {
        if (s.shutdownGracePeriod != null) {
            return KubeDurations.parse(s.shutdownGracePeriod);
        }
        Duration derived = derivedShutdownGracePeriod(s);
        return derived != null ? derived : EXECUTOR_SHUTDOWN_GRACE;
    }

    /** The pod's terminationGracePeriodSeconds: the spec's, else shutdownGracePeriod plus the margin. */
    public static long terminationGracePeriodSeconds(ExecutorClusterSpec s) {
        if (s.terminationGracePeriodSeconds != null) {
            return s.terminationGracePeriodSeconds;
        }
        Duration grace = shutdownGracePeriod(s).plus(TERMINATION_MARGIN);
        return grace.toSeconds() + (grace.toNanosPart() > 0 ? 1 : 0);
    }
}
