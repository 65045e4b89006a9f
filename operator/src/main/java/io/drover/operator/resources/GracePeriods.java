package io.drover.operator.resources;

import io.drover.contract.SettingDefaults;
import io.drover.operator.api.v1alpha1.Engine;
import io.drover.operator.api.v1alpha1.ExecutorClusterSpec;

import java.time.Duration;

/**
 * How long a stopping executor node gets, derived in one place from what the user declares.
 * A node that is asked to stop (scale-down, roll, drain, eviction) stops acquiring, hands its
 * queued jobs back at once, and lets its running jobs finish for shutdownGracePeriod; the pod
 * must outlive that (terminationGracePeriodSeconds), or the kubelet kills the jobs it just let
 * run. With {@code maxJobDuration} set, both follow it, and so does jobTimeout: a scale-down
 * then never cuts a running job.
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

    /** The shutdownGracePeriod to give the executor when the spec leaves it to maxJobDuration, else null. */
    public static Duration derivedShutdownGracePeriod(ExecutorClusterSpec s) {
        if (s.shutdownGracePeriod != null || s.maxJobDuration == null) {
            return null;
        }
        return KubeDurations.parse(s.maxJobDuration).plus(SHUTDOWN_MARGIN);
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
