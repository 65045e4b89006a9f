package io.drover.executor.figures;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.concurrent.TimeUnit;

/**
 * One node's figures for the operator's view of the fleet (ExecutorCluster status): the gauges
 * as they are now and the counters and timers as running totals, read from the node's own
 * meters, so the figures agree with /q/metrics. The reader takes rates from the difference of
 * two readings (a restarted node starts its totals at zero again; the reader sees them drop).
 *
 * @param executed             jobs finished by this node (every outcome)
 * @param executionSeconds     handler time of those jobs, summed
 * @param startDelaySeconds    due-to-start delays of started jobs, summed ({@code started} of them)
 * @param acquisitionSeconds   time spent in acquisition cycles, summed ({@code acquisitions} of them)
 * @param acquiredJobs         jobs locked by those cycles
 * @param globalLockWaitSeconds Global mode: time waiting for the acquire lock, summed
 * @param optimisticLockFailures Optimistic mode: claims lost to another node
 * @param problem              why the node cannot take jobs now ("Reason: message", e.g.
 *                             "DatabaseReadOnly: ..."), or null; the operator names it when the
 *                             node is not ready
 */
public record NodeFigures(
        String node, String lockMode,
        int threads, int busyThreads, int queueSize, int queued, int held,
        double dueBacklog, double dueLagSeconds, double deadLetters,
        double executed, double succeeded, double retried, double deadLettered,
        double executionSeconds, double started, double startDelaySeconds,
        double acquisitions, double acquisitionSeconds, double acquiredJobs, double acquisitionErrors,
        double globalLockWaitSeconds, double optimisticLockFailures, String problem) {

    /** Reads the node's meters (names as in docs/metrics.md), with its current problem (or null). */
    public static NodeFigures read(String node, String lockMode, MeterRegistry registry, String problem) {
        Timer execution = null;
        double executionSeconds = 0;
        for (Timer t : registry.find("drover.job.execution").timers()) {
            executionSeconds += t.totalTime(TimeUnit.SECONDS);
            execution = t;
        }
        Timer startDelay = registry.find("drover.job.start.delay").timer();
        Timer acquisition = registry.find("drover.acquisition").timer();
        DistributionSummary acquired = registry.find("drover.acquisition.jobs").summary();
        Timer globalWait = registry.find("drover.global.lock.wait").timer();
        return new NodeFigures(node, lockMode,
                (int) gauge(registry, "drover.threads"), (int) gauge(registry, "drover.threads.busy"),
                (int) gauge(registry, "drover.queue.capacity"), (int) gauge(registry, "drover.queue.depth"),
                (int) gauge(registry, "drover.jobs.held"),
                gauge(registry, "drover.due.backlog"), gauge(registry, "drover.due.lag"), gauge(registry, "drover.dead.letters"),
                executed(registry, null), executed(registry, "succeeded"), executed(registry, "retried"),
                executed(registry, "dead_lettered"),
                execution == null ? 0 : executionSeconds,
                startDelay == null ? 0 : startDelay.count(), startDelay == null ? 0 : startDelay.totalTime(TimeUnit.SECONDS),
                acquisition == null ? 0 : acquisition.count(), acquisition == null ? 0 : acquisition.totalTime(TimeUnit.SECONDS),
                acquired == null ? 0 : acquired.totalAmount(), counter(registry, "drover.acquisition.errors"),
                globalWait == null ? 0 : globalWait.totalTime(TimeUnit.SECONDS), counter(registry, "drover.optimistic.lock.failures"),
                problem);
    }

    private static double gauge(MeterRegistry registry, String name) {
        Gauge g = registry.find(name).gauge();
        return g == null ? Double.NaN : g.value();
    }

    private static double counter(MeterRegistry registry, String name) {
        return registry.find(name).counters().stream().mapToDouble(Counter::count).sum();
    }

    private static double executed(MeterRegistry registry, String outcome) {
        var search = registry.find("drover.jobs.executed");
        if (outcome != null) {
            search = search.tag("outcome", outcome);
        }
        return search.counters().stream().mapToDouble(Counter::count).sum();
    }
}
