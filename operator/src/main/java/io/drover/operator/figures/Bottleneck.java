package io.drover.operator.figures;

import java.util.Locale;

/**
 * Names the stage that limits a fleet, from its figures over the last minute, with the evidence
 * and what to change (docs/diagnosis.md explains each rule and its thresholds). Only a fleet
 * with due jobs waiting can have a bottleneck; which stage it is follows from where the work
 * piles up: threads all busy (the pool or the handlers), or threads idle with empty queues
 * while jobs are due (acquisition: lock contention, the database, or the acquisition settings).
 */
public final class Bottleneck {
    /** Threads this busy count as all busy. */
    static final double SATURATED = 0.9;
    /** Queues this empty count as starved. */
    static final double STARVED = 0.1;
    /** Mean job duration from which the handlers, not the pool's overhead, set the pace. */
    static final double LONG_JOB_SECONDS = 0.1;
    /** Global mode: share of the time spent waiting for the acquire lock. */
    static final double GLOBAL_WAIT_SHARE = 0.5;
    /** Optimistic mode: share of claims lost to other nodes. */
    static final double OPTIMISTIC_LOSS_SHARE = 0.2;
    /** Mean database time of an acquisition cycle that counts as slow. */
    static final double SLOW_ACQUISITION_SECONDS = 0.25;

    /** status True: a bottleneck; False: none; Unknown: not enough figures yet. */
    public record Diagnosis(String status, String reason, String message) {
    }

    /** What the diagnosis needs besides the figures. */
    public record Context(String lockMode, boolean autoscalingActive, int replicas, int maxReplicas) {
    }

    private Bottleneck() {
    }

    public static Diagnosis diagnose(FleetFigures.Snapshot s, Context ctx) {
        if (s.nodes().isEmpty()) {
            return new Diagnosis("Unknown", "NoFigures", "No executor node answered with its figures");
        }
        if (!s.hasRates()) {
            return new Diagnosis("Unknown", "CollectingFigures", "Figures need two readings at least 10 s apart");
        }
        var f = s.status();
        if (f.dueBacklog == null) {
            return new Diagnosis("Unknown", "DatabaseUnavailable", "No executor node can read the database:"
                    + " the backlog is unknown (see the nodes' readiness)");
        }
        double seconds = 0;
        double executed = 0, execution = 0, acquisitions = 0, acquisitionSeconds = 0, acquired = 0, errors = 0;
        double globalWait = 0, lost = 0, lagThen = 0, lagNow = 0;
        double threadSeconds = 0;
        for (FleetFigures.NodeWindow w : s.nodes()) {
            seconds += w.seconds();
            threadSeconds += w.seconds() * w.newest().threads();
            executed += w.executed();
            execution += w.executionSeconds();
            acquisitions += w.acquisitions();
            acquisitionSeconds += w.acquisitionSeconds();
            acquired += w.acquiredJobs();
            errors += w.acquisitionErrors();
            globalWait += w.globalLockWaitSeconds();
            lost += w.optimisticLockFailures();
            lagThen = Math.max(lagThen, FleetFigures.finite(w.lagThen()));
            lagNow = Math.max(lagNow, FleetFigures.finite(w.newest().dueLagSeconds()));
        }
        long backlog = f.dueBacklog == null ? 0 : f.dueBacklog;
        int busy = f.busyThreads, threads = Math.max(1, f.threads);
        // How busy the threads were over the window (handler time / thread time), not at the
        // instant of the reading: one reading may catch a worker between two jobs.
        double busyShare = threadSeconds > 0 ? Math.min(1, execution / threadSeconds) : (double) busy / threads;
        double queueShare = f.queueSize == null || f.queueSize == 0 ? 0 : (double) f.queued / f.queueSize;
        String pace = f.jobsPerSecond + " jobs/s, threads " + percent(busyShare) + " busy";

        if (backlog == 0) {
            if (executed == 0 && busy == 0) {
                return new Diagnosis("False", "Idle", "No job is due and none ran in the last minute");
            }
            return new Diagnosis("False", "KeepingUp", "No due job waits (" + pace + ")");
        }
        String waiting = backlog + " due jobs wait, the oldest for " + f.lag;
        if (busyShare >= SATURATED) {
            if (ctx.autoscalingActive() && ctx.replicas() >= ctx.maxReplicas() && lagNow > lagThen) {
                return new Diagnosis("True", "ScalingCapped", "At autoscaling.maxReplicas (" + ctx.maxReplicas()
                        + (ctx.maxReplicas() == 1 ? " node" : " nodes") + ") with every thread busy, and the oldest due job is later than a minute ago ("
                        + FleetFigures.kubeDuration(lagThen) + " -> " + f.lag + "): raise autoscaling.maxReplicas, or threads per node");
            }
            double meanJob = executed > 0 ? execution / executed : 0;
            if (meanJob >= LONG_JOB_SECONDS) {
                return new Diagnosis("True", "HandlerBound", "Every thread is busy running jobs that take " + fmt(meanJob)
                        + " s on average; " + waiting + " (" + pace + "). If handlers wait on I/O, raise threads (or set"
                        + " virtualThreads: true); if they use the CPU, add nodes");
            }
            return new Diagnosis("True", "PoolSaturated", "Every thread is busy and the queues are " + percent(queueShare)
                    + " full; " + waiting + " (" + pace + ", jobs take " + fmt(meanJob) + " s on average). Add nodes,"
                    + " or threads if the nodes have CPU to spare");
        }
        if (queueShare < STARVED) {
            String mode = ctx.lockMode() == null ? "" : ctx.lockMode();
            double waitShare = seconds > 0 ? globalWait / seconds : 0;
            if ("Global".equals(mode) && waitShare >= GLOBAL_WAIT_SHARE) {
                return new Diagnosis("True", "LockContention", "Nodes spend " + percent(waitShare) + " of their time"
                        + " waiting for the global acquire lock while threads idle; " + waiting + " (" + pace + ")."
                        + " Acquire more per turn (acquirePageSize), or use lockMode SkipLocked");
            }
            double lossShare = lost / Math.max(1, lost + acquired);
            if ("Optimistic".equals(mode) && lossShare >= OPTIMISTIC_LOSS_SHARE) {
                return new Diagnosis("True", "LockContention", percent(lossShare) + " of job claims are lost to other"
                        + " nodes while threads idle; " + waiting + " (" + pace + "). Use lockMode Global or SkipLocked");
            }
            double dbSeconds = acquisitions > 0 ? (acquisitionSeconds - globalWait) / acquisitions : 0;
            if (dbSeconds >= SLOW_ACQUISITION_SECONDS || errors > 0) {
                return new Diagnosis("True", "DatabaseBound", "Acquisition round trips take " + fmt(dbSeconds * 1000)
                        + " ms on average" + (errors > 0 ? " and " + (long) errors + " failed" : "") + " while threads idle; "
                        + waiting + " (" + pace + "). The database is slow or failing: check its CPU, I/O and connections;"
                        + " a larger acquirePageSize fetches more per round trip");
            }
            double page = acquisitions > 0 ? acquired / acquisitions : 0;
            return new Diagnosis("True", "AcquisitionBound", "Threads idle and queues near empty while jobs are due: "
                    + waiting + " (" + pace + "; " + fmt(page) + " jobs per acquisition, " + fmt(seconds > 0
                    ? acquisitions / seconds * s.nodes().size() : 0) + " acquisitions/s). Raise acquirePageSize, shorten"
                    + " acquireInterval, or change lockMode");
        }
        return new Diagnosis("False", "Draining", waiting + "; the fleet is working through them (" + pace + ")");
    }

    private static String fmt(double d) {
        return d >= 10 ? String.format(Locale.ROOT, "%.0f", d) : String.format(Locale.ROOT, "%.2f", d);
    }

    private static String percent(double share) {
        return Math.round(share * 100) + "%";
    }
}
