package io.drover.flowable.engine;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import org.flowable.job.service.impl.asyncexecutor.AcquireAsyncJobsDueLifecycleListener;
import org.flowable.job.service.impl.asyncexecutor.AcquireTimerLifecycleListener;

import java.time.Duration;

/**
 * Watches Flowable's two acquisition loops (jobs, timers): each turn of a loop is a sign of
 * life, so a loop that stops turning (stuck in a database call, or dead: Flowable's loops catch
 * everything, so nothing else would tell) fails the node's liveness and the pod restarts. Also
 * counts what the dashboard reads under the Drover executor's names: jobs per acquisition
 * ({@code drover_acquisition_jobs}) and claims lost to other nodes in the Optimistic mode
 * ({@code drover_optimistic_lock_failures_total}).
 */
final class AcquisitionWatch {
    private final DistributionSummary acquired;
    private final Counter optimisticFailures;
    private volatile long jobsLoopTurned = System.nanoTime();
    private volatile long timersLoopTurned = System.nanoTime();

    AcquisitionWatch(MeterRegistry registry) {
        acquired = DistributionSummary.builder("drover.acquisition.jobs").description("Jobs locked per acquisition cycle")
                .register(registry);
        optimisticFailures = Counter.builder("drover.optimistic.lock.failures")
                .description("Acquisition cycles lost to another node (Optimistic lock mode)").register(registry);
    }

    /** How long the slower of the two loops has not turned. */
    Duration stalledFor() {
        long oldest = Math.min(jobsLoopTurned, timersLoopTurned);
        return Duration.ofNanos(System.nanoTime() - oldest);
    }

    /** Both loops count as just turned (when they start). */
    void reset() {
        jobsLoopTurned = timersLoopTurned = System.nanoTime();
    }

    /** For the async jobs loop: every turn starts acquiring, or starts waiting (the global lock taken or not). */
    AcquireAsyncJobsDueLifecycleListener jobs() {
        return new AcquireAsyncJobsDueLifecycleListener() {
            @Override
            public void startAcquiring(String engineName, int remainingCapacity, int maxAsyncJobsDuePerAcquisition) {
                jobsLoopTurned = System.nanoTime();
            }

            @Override
            public void stopAcquiring(String engineName) {
                jobsLoopTurned = System.nanoTime();
            }

            @Override
            public void acquiredJobs(String engineName, int jobsAcquired, int maxAsyncJobsDuePerAcquisition) {
                acquired.record(jobsAcquired);
            }

            @Override
            public void rejectedJobs(String engineName, int jobsRejected, int jobsAcquired, int maxAsyncJobsDuePerAcquisition) {
                // handed back by Flowable itself (queue full)
            }

            @Override
            public void optimistLockingException(String engineName, int maxAsyncJobsDuePerAcquisition) {
                optimisticFailures.increment();
            }

            @Override
            public void startWaiting(String engineName, long millisToWait) {
                jobsLoopTurned = System.nanoTime();
            }
        };
    }

    /** For the timers loop. */
    AcquireTimerLifecycleListener timers() {
        return new AcquireTimerLifecycleListener() {
            @Override
            public void startAcquiring(String engineName, int maxTimerJobsPerAcquisition) {
                timersLoopTurned = System.nanoTime();
            }

            @Override
            public void stopAcquiring(String engineName) {
                timersLoopTurned = System.nanoTime();
            }

            @Override
            public void acquiredJobs(String engineName, int jobsAcquired, int maxTimerJobsPerAcquisition) {
                timersLoopTurned = System.nanoTime();
            }

            @Override
            public void startWaiting(String engineName, long millisToWait) {
                timersLoopTurned = System.nanoTime();
            }
        };
    }
}
