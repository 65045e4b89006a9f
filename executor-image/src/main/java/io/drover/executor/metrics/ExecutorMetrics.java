package io.drover.executor.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The executor's meters, named by Prometheus conventions (the registry adds {@code _total},
 * {@code _seconds}); docs/metrics.md lists them. Per-type meters are cached so the hot path
 * does no registry lookups.
 */
public final class ExecutorMetrics {
    private final MeterRegistry registry;
    private final Timer acquisitionTime;
    private final DistributionSummary jobsPerAcquisition;
    private final Timer globalLockWait;
    private final Timer globalLockHold;
    private final Counter globalLockTimeouts;
    private final Counter optimisticLockFailures;
    private final Counter acquisitionErrors;
    private final DistributionSummary completionBatch;
    private final Counter locksLost;
    private final Counter locksRecovered;
    private final Counter deadLetteredOnRecovery;
    private final Counter released;
    private final Timer startDelay;
    private final Map<String, TypeMeters> byType = new ConcurrentHashMap<>();

    public ExecutorMetrics(MeterRegistry registry) {
        this.registry = registry;
        acquisitionTime = Timer.builder("drover.acquisition").description("Time of one acquisition cycle")
                .publishPercentileHistogram().register(registry);
        jobsPerAcquisition = DistributionSummary.builder("drover.acquisition.jobs")
                .description("Jobs locked per acquisition cycle").register(registry);
        globalLockWait = Timer.builder("drover.global.lock.wait")
                .description("Time spent waiting for the global acquire lock").register(registry);
        globalLockHold = Timer.builder("drover.global.lock.hold")
                .description("Time the global acquire lock was held").register(registry);
        globalLockTimeouts = counter("drover.global.lock.timeouts", "Acquisition cycles that gave up waiting for the global acquire lock");
        optimisticLockFailures = counter("drover.optimistic.lock.failures", "Job claims lost to another node (Optimistic lock mode)");
        acquisitionErrors = counter("drover.acquisition.errors", "Acquisition cycles that failed with a database error");
        completionBatch = DistributionSummary.builder("drover.completion.batch")
                .description("Job outcomes written per completion round trip").register(registry);
        locksLost = counter("drover.locks.lost", "Jobs whose lock this node no longer held when renewing or completing");
        locksRecovered = counter("drover.locks.recovered", "Expired locks of dead nodes released by this node's sweep");
        deadLetteredOnRecovery = counter("drover.locks.recovered.dead.lettered", "Jobs moved to dead letters by the sweep: attempts used up by node deaths");
        startDelay = Timer.builder("drover.job.start.delay")
                .description("From a job's due time to the start of its execution (job lag)")
                .publishPercentileHistogram().maximumExpectedValue(java.time.Duration.ofHours(1)).register(registry);
        released = counter("drover.jobs.released", "Queued jobs unlocked unstarted at shutdown for other nodes to take");
    }

    private Counter counter(String name, String description) {
        return Counter.builder(name).description(description).register(registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    public void gauge(String name, String description, Supplier<Number> value) {
        io.micrometer.core.instrument.Gauge.builder(name, value).description(description).register(registry);
    }

    public void acquisition(long nanos, int jobs) {
        acquisitionTime.record(nanos, TimeUnit.NANOSECONDS);
        jobsPerAcquisition.record(jobs);
    }

    public void acquisitionError() {
        acquisitionErrors.increment();
    }

    public void globalLockAcquired(long waitNanos) {
        globalLockWait.record(waitNanos, TimeUnit.NANOSECONDS);
    }

    public void globalLockWaitTimedOut(long waitNanos) {
        globalLockWait.record(waitNanos, TimeUnit.NANOSECONDS);
        globalLockTimeouts.increment();
    }

    public void globalLockReleased(long holdNanos) {
        globalLockHold.record(holdNanos, TimeUnit.NANOSECONDS);
    }

    public void optimisticLockFailures(int count) {
        if (count > 0) {
            optimisticLockFailures.increment(count);
        }
    }

    public void completionBatch(int size) {
        completionBatch.record(size);
    }

    public void locksLost(int count) {
        if (count > 0) {
            locksLost.increment(count);
        }
    }

    public void locksRecovered(int unlocked, int deadLettered) {
        locksRecovered.increment(unlocked + deadLettered);
        deadLetteredOnRecovery.increment(deadLettered);
    }

    public void released(int count) {
        released.increment(count);
    }

    /** Due-to-start delay; the due time comes from the database clock, the start from this node's. */
    public void started(java.time.Instant dueAt) {
        long nanos = java.time.Duration.between(dueAt, java.time.Instant.now()).toNanos();
        startDelay.record(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }

    public void executed(String type, String outcome, long nanos) {
        TypeMeters meters = byType.computeIfAbsent(type, TypeMeters::new);
        meters.time.record(nanos, TimeUnit.NANOSECONDS);
        switch (outcome) {
            case "succeeded" -> meters.succeeded.increment();
            case "retried" -> meters.retried.increment();
            default -> meters.deadLettered.increment();
        }
    }

    public double optimisticLockFailureCount() {
        return optimisticLockFailures.count();
    }

    private final class TypeMeters {
        final Timer time;
        final Counter succeeded;
        final Counter retried;
        final Counter deadLettered;

        TypeMeters(String type) {
            time = Timer.builder("drover.job.execution").tag("type", type)
                    .description("Handler execution time").publishPercentileHistogram().register(registry);
            succeeded = executedCounter(type, "succeeded");
            retried = executedCounter(type, "retried");
            deadLettered = executedCounter(type, "dead_lettered");
        }

        private Counter executedCounter(String type, String outcome) {
            return Counter.builder("drover.jobs.executed").tag("type", type).tag("outcome", outcome)
                    .description("Job executions by type and outcome").register(registry);
        }
    }
}
