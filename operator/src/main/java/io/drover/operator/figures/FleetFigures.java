package io.drover.operator.figures;

import io.drover.operator.api.v1alpha1.FleetStatus;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fleet's figures over the last minute, from successive readings of each node: gauges from
 * the newest reading, rates from the difference between the oldest reading still in the window
 * and the newest. A node whose totals went down restarted: its history starts again.
 */
public final class FleetFigures {
    static final Duration WINDOW = Duration.ofSeconds(60);

    private record Timed(Instant at, NodeReading reading) {
    }

    /** Readings per cluster (by uid), per pod. */
    private final Map<String, Map<String, Deque<Timed>>> history = new ConcurrentHashMap<>();
    /** When each cluster was last observed: a deleted cluster's history is dropped after FORGET_AFTER. */
    private final Map<String, Instant> lastObserved = new ConcurrentHashMap<>();
    static final Duration FORGET_AFTER = Duration.ofMinutes(10);

    /** One node's change over the window (all zero when it has a single reading). */
    public record NodeWindow(String pod, NodeReading newest, double seconds, double executed, double executionSeconds,
                             double started, double startDelaySeconds, double acquisitions, double acquisitionSeconds,
                             double acquiredJobs, double acquisitionErrors, double globalLockWaitSeconds,
                             double optimisticLockFailures, double lagThen) {
        double jobsPerSecond() {
            return seconds > 0 ? executed / seconds : 0;
        }
    }

    /** The fleet now, and each node's window, for the status and the diagnosis. */
    public record Snapshot(FleetStatus status, List<NodeWindow> nodes) {
        public boolean hasRates() {
            return nodes.stream().anyMatch(n -> n.seconds() >= 10);
        }
    }

    /** Records the readings of a cluster's pods at {@code now}; pods that did not answer keep no history. */
    public Snapshot observe(String clusterUid, Map<String, NodeReading> readings, Instant now) {
        lastObserved.put(clusterUid, now);
        lastObserved.entrySet().removeIf(e -> {
            boolean stale = e.getValue().isBefore(now.minus(FORGET_AFTER)); // a deleted cluster
            if (stale) {
                history.remove(e.getKey());
            }
            return stale;
        });
        Map<String, Deque<Timed>> pods = history.computeIfAbsent(clusterUid, k -> new ConcurrentHashMap<>());
        // A pod that missed a reading keeps its history for the window (one slow answer must
        // not restart its rates); one gone for longer is dropped.
        pods.values().removeIf(d -> d.peekLast().at().isBefore(now.minus(WINDOW)));
        List<NodeWindow> windows = new ArrayList<>();
        for (var e : new TreeMap<>(readings).entrySet()) {
            Deque<Timed> d = pods.computeIfAbsent(e.getKey(), k -> new ArrayDeque<>());
            if (!d.isEmpty() && restarted(d.peekLast().reading(), e.getValue())) {
                d.clear(); // restarted: its totals began again
            }
            d.addLast(new Timed(now, e.getValue()));
            while (d.size() > 2 && d.peekFirst().at().isBefore(now.minus(WINDOW))) {
                d.pollFirst();
            }
            windows.add(window(e.getKey(), d.peekFirst(), d.peekLast()));
        }
        return new Snapshot(status(windows, now), windows);
    }

    /** Any total that went down: the node started again (its counters with it). */
    private static boolean restarted(NodeReading before, NodeReading now) {
        return now.executed() < before.executed() || now.acquisitions() < before.acquisitions()
                || now.acquisitionSeconds() < before.acquisitionSeconds() || now.started() < before.started()
                || now.acquiredJobs() < before.acquiredJobs();
    }

    private static NodeWindow window(String pod, Timed first, Timed last) {
        NodeReading a = first.reading();
        NodeReading b = last.reading();
        double seconds = Duration.between(first.at(), last.at()).toMillis() / 1000.0;
        return new NodeWindow(pod, b, seconds, b.executed() - a.executed(), b.executionSeconds() - a.executionSeconds(),
                b.started() - a.started(), b.startDelaySeconds() - a.startDelaySeconds(),
                b.acquisitions() - a.acquisitions(), b.acquisitionSeconds() - a.acquisitionSeconds(),
                b.acquiredJobs() - a.acquiredJobs(), b.acquisitionErrors() - a.acquisitionErrors(),
                b.globalLockWaitSeconds() - a.globalLockWaitSeconds(),
                b.optimisticLockFailures() - a.optimisticLockFailures(), a.dueLagSeconds());
    }

    private static FleetStatus status(List<NodeWindow> windows, Instant now) {
        FleetStatus f = new FleetStatus();
        f.observedAt = now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        f.nodesReporting = windows.size();
        if (windows.isEmpty()) {
            return f;
        }
        double backlog = 0;
        double lag = 0;
        double dead = 0;
        double rate = 0;
        int busy = 0;
        int threads = 0;
        int queued = 0;
        int queueSize = 0;
        f.nodes = new ArrayList<>();
        for (NodeWindow w : windows) {
            NodeReading r = w.newest();
            // Cluster-wide gauges: every node reads the same table; NaN while its database is out.
            backlog = Math.max(backlog, finite(r.dueBacklog()));
            lag = Math.max(lag, finite(r.dueLagSeconds()));
            dead = Math.max(dead, finite(r.deadLetters()));
            rate += w.jobsPerSecond();
            busy += r.busyThreads();
            threads += r.threads();
            queued += r.queued();
            queueSize += r.queueSize();
            FleetStatus.Node n = new FleetStatus.Node();
            n.name = w.pod();
            n.jobsPerSecond = round(w.jobsPerSecond());
            n.busyThreads = r.busyThreads();
            n.threads = r.threads();
            n.queued = r.queued();
            n.queueSize = r.queueSize();
            f.nodes.add(n);
        }
        if (windows.stream().anyMatch(w -> Double.isFinite(w.newest().dueBacklog()))) {
            f.dueBacklog = (long) backlog;
            f.lag = kubeDuration(lag);
            f.deadLetters = (long) dead;
        } // else: no node can read the database; unknown, not zero
        f.jobsPerSecond = round(rate);
        f.busyThreads = busy;
        f.threads = threads;
        f.queued = queued;
        f.queueSize = queueSize;
        return f;
    }

    static double finite(double d) {
        return Double.isFinite(d) ? d : 0;
    }

    static double round(double d) {
        return Math.round(d * 10) / 10.0;
    }

    /** Seconds as Kubernetes writes durations: 0s, 45s, 1m30s, 2h5m (whole seconds). */
    static String kubeDuration(double seconds) {
        long s = Math.round(seconds);
        if (s < 60) {
            return s + "s";
        }
        StringBuilder b = new StringBuilder();
        if (s >= 3600) {
            b.append(s / 3600).append('h');
            s %= 3600;
        }
        if (s >= 60) {
            b.append(s / 60).append('m');
            s %= 60;
        }
        if (s > 0) {
            b.append(s).append('s');
        }
        return b.toString();
    }
}
