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
    private final Counter rewritesUnchanged;
    private final Counter crashesCounted;
    private final Counter poisoned;
    private final Counter released;
    private final Counter notStarted;
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
                .description("Time the global acquire lock was held, as the node sees it (an upper bound): the request that took it, from its send to its page read")
                .register(registry);
        globalLockTimeouts = counter("drover.global.lock.timeouts", "Acquisition cycles that gave up waiting for the global acquire lock");
        optimisticLockFailures = counter("drover.optimistic.lock.failures", "Job claims lost to another node (Optimistic lock mode)");
        acquisitionErrors = counter("drover.acquisition.errors", "Acquisition cycles that failed with a database error");
        completionBatch = DistributionSummary.builder("drover.completion.batch")
                .description("Job outcomes written per completion round trip").register(registry);
        locksLost = counter("drover.locks.lost", "Running jobs whose lock this node no longer held when renewing or completing (they may have run twice),"
                + " or outcomes written again, after their locks could have lapsed, following a write whose answer was lost");
        rewritesUnchanged = counter("drover.outcomes.rewrites.unchanged", "Outcomes that changed nothing when written again after"
                + " a write whose answer was lost, while every lock of the batch was still this node's by its lease: the lost"
                + " write's own commit, unless something outside the lease model moved the rows (not in drover_locks_lost)");
        locksRecovered = counter("drover.locks.recovered", "Jobs of dead nodes recovered by this node (expired locks swept, or a dead predecessor's released)");
        crashesCounted = counter("drover.jobs.crashed", "Recovered jobs that were running when their node died");
        poisoned = counter("drover.jobs.poisoned", "Jobs moved to dead letters as poison: maxCrashes nodes died running them");
        notStarted = counter("drover.jobs.not.started", "Queued jobs this node dropped unstarted because their lock lapsed or was lost (another node runs them)");
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

    public void rewritesUnchanged(int count) {
        if (count > 0) {
            rewritesUnchanged.increment(count);
        }
    }

    public void locksRecovered(int unlocked, int crashed, int poisonedJobs) {
        locksRecovered.increment(unlocked + poisonedJobs);
        crashesCounted.increment(crashed + poisonedJobs);
        poisoned.increment(poisonedJobs);
    }

    public void notStarted(int count) {
        if (count > 0) {
            notStarted.increment(count);
        }
    }

    public void released(int count) {
        released.increment(count);
    }

    /**
     * Due-to-start delay; the due time comes from the database clock, the start from this node's.
     * Clamped to [0, 1 year]: whatever a row holds, a metric must never throw on a worker.
     */
    public void started(java.time.Instant dueAt) {
        long millis;
        try {
            millis = Math.subtractExact(System.currentTimeMillis(), dueAt.toEpochMilli());
        } catch (ArithmeticException e) {
            millis = Long.MAX_VALUE;
        }
        startDelay.record(Math.min(Math.max(0, millis), MAX_START_DELAY_MILLIS), TimeUnit.MILLISECONDS);
    }

    private static final long MAX_START_DELAY_MILLIS = java.time.Duration.ofDays(365).toMillis();

    /** A handler's run took this long (its outcome is counted by {@link #handled}, once it is settled). */
    public void ran(String type, long nanos) {
        byType.computeIfAbsent(type, TypeMeters::new).time.record(nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * A job's outcome, counted once as the node decided it: a run's (which a timeout or a
     * shutdown may have put in place of the handler's), or one decided without running the
     * handler (a row out of range, no handler, a start the database refused). An outcome the
     * database then refuses to write is dead-lettered by the completion writer, still counted as
     * decided.
     */
    public void handled(String type, String outcome) {
        byType.computeIfAbsent(type, TypeMeters::new).count(outcome);
    }

    public void timedOut(String type) {
        byType.computeIfAbsent(type, TypeMeters::new).timedOut.increment();
    }

    public double optimisticLockFailureCount() {
        return optimisticLockFailures.count();
    }

    private final class TypeMeters {
        final Timer time;
        final Counter succeeded;
        final Counter retried;
        final Counter deadLettered;
        final Counter deferred;
        final Counter timedOut;

        TypeMeters(String type) {
            time = Timer.builder("drover.job.execution").tag("type", type)
                    .description("Handler execution time").publishPercentileHistogram().register(registry);
            succeeded = executedCounter(type, "succeeded");
            retried = executedCounter(type, "retried");
            deadLettered = executedCounter(type, "dead_lettered");
            deferred = executedCounter(type, "deferred");
            timedOut = Counter.builder("drover.jobs.timed.out").tag("type", type)
                    .description("Runs that outlived their jobTimeout and were interrupted").register(registry);
        }

        void count(String outcome) {
            switch (outcome) {
                case "succeeded" -> succeeded.increment();
                case "retried" -> retried.increment();
                case "deferred" -> deferred.increment();
                default -> deadLettered.increment();
            }
        }

        private Counter executedCounter(String type, String outcome) {
            return Counter.builder("drover.jobs.executed").tag("type", type).tag("outcome", outcome)
                    .description("Job executions by type and outcome").register(registry);
        }
    }
}
