package io.drover.executor.engine;

import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.LockMaintenance;
import org.jboss.logging.Logger;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Renews this node's locks every {@code lockExpiry/4}, on a thread of its own (a slow sweep or
 * a long acquisition never delays it). Renewal is what lets {@code lockExpiry} be short (fast
 * recovery after a crash) without expiring the locks of long-running jobs (duplicate
 * execution). The database answers which locks it renewed: a held job it did not renew was
 * swept while this node could not renew (frozen, cut off); a queued one is dropped so it never
 * starts here, a running one is reported (its outcome will find the lock gone). It is the last
 * loop to stop at shutdown, so jobs finishing in the grace period keep their locks.
 *
 * <p>A failed renewal is tried again after {@link #AFTER_FAILURE}, not a whole interval later: a
 * renewal that waited out its call's timeout ({@code lockExpiry/2}, on a connection gone
 * half-open) ends three quarters into the lease, and the next one an interval later would come
 * when the lease has run out, and other nodes may sweep the jobs. The pool discards the failed
 * connection, so the retry goes out on another one.
 */
final class LockRenewer {
    private static final Logger LOG = Logger.getLogger(LockRenewer.class);

    private final DataSource dataSource;
    private final LockMaintenance maintenance;
    private final HeldJobs held;
    private final DatabaseHealth database;
    private final Heartbeats.Beat beat;
    private final ExecutorMetrics metrics;
    private final Duration every;
    private final ScheduledExecutorService scheduler;
    private final ProblemLog problems = new ProblemLog(LOG, "Renewing job locks");
    /** How soon a failed renewal is tried again. */
    static final Duration AFTER_FAILURE = Duration.ofSeconds(1);

    LockRenewer(DataSource dataSource, LockMaintenance maintenance, HeldJobs held, DatabaseHealth database,
                Heartbeats heartbeats, ExecutorMetrics metrics, Duration every, String nodeName) {
        this.dataSource = dataSource;
        this.maintenance = maintenance;
        this.held = held;
        this.database = database;
        this.beat = heartbeats.register("lock renewal");
        this.metrics = metrics;
        this.every = every;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("drover-renewer-" + nodeName).factory());
    }

    void start() {
        scheduler.schedule(this::turn, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * One renewal, then the next: an interval later, or sooner after a failure. A failure that is
     * not the database's (a bug) stops the renewals, logged: the node starts no job from then on
     * and liveness restarts it at once (Heartbeats), rather than it working on while its locks
     * lapse and other nodes run its jobs a second time.
     */
    private void turn() {
        boolean renewed;
        try {
            renewed = renew();
        } catch (RuntimeException | Error e) {
            beat.ended(e);
            LOG.errorf(e, "Renewing job locks failed unexpectedly: renewals stop, no job starts on this node from"
                    + " now on, and liveness restarts it");
            return;
        }
        Duration next = renewed || AFTER_FAILURE.compareTo(every) > 0 ? every : AFTER_FAILURE;
        if (!scheduler.isShutdown()) {
            scheduler.schedule(this::turn, next.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** @return false if the database could not be asked (the next try comes sooner) */
    boolean renew() {
        beat.beat();
        List<Long> expired = held.dropExpiredQueued();
        if (!expired.isEmpty()) {
            metrics.notStarted(expired.size());
            LOG.warnf("%d queued jobs were dropped unstarted: their locks could not be renewed in time (the"
                    + " database was unreachable, or this node was frozen); they are released for any node to take once the"
                    + " database answers", expired.size());
        }
        List<HeldJobs.Lease> asked = held.leases();
        if (asked.isEmpty()) {
            return true;
        }
        long sent = System.nanoTime();
        try (Connection c = dataSource.getConnection()) {
            LockMaintenance.Renewal r = maintenance.renew(c, asked.stream().map(HeldJobs.Lease::id).toList());
            Set<Long> renewed = r.renewed();
            problems.succeeded();
            database.succeeded();
            held.renewed(asked, renewed, sent);
            reportRefused(r.refused());
            reportBusy(r.busy());
            // A refused row keeps its lock only until it expires; then another node may sweep
            // it. Not started yet: dropped now, as a lost one (never started here; the row is
            // taken again once its lock expires). Running: its run goes on and its outcome is
            // written if the database takes it; it may run again elsewhere meanwhile, as after
            // any fault that keeps a node from renewing; not counted as lost while it is not.
            // A busy row is still this node's: kept, queued or running; its lease is not
            // extended, so a queued one that stays busy past it is dropped unstarted as any.
            Set<Long> kept = r.busy().isEmpty() ? renewed : union(renewed, r.busy());
            Set<Long> runningKept = r.refused().isEmpty() ? kept : union(kept, r.refused());
            if (renewed.size() < asked.size()) {
                List<Long> queued = held.dropLost(asked, kept, HeldJobs.State.QUEUED);
                List<Long> running = held.dropLost(asked, runningKept, HeldJobs.State.RUNNING);
                if (!queued.isEmpty() || !running.isEmpty()) {
                    metrics.notStarted(queued.size());
                    metrics.locksLost(running.size());
                    LOG.warnf("Lost the locks of %d queued jobs (dropped, never started here) and %d running jobs"
                            + " (their other run may overlap this one): they were recovered by other nodes while this"
                            + " node could not renew, or the database refused to renew them", queued.size(), running.size());
                }
            }
            return true;
        } catch (Exception e) {
            database.failed(e);
            problems.failed(e);
            return false;
        }
    }

    private static Set<Long> union(Set<Long> a, Set<Long> b) {
        Set<Long> u = new java.util.HashSet<>(a);
        u.addAll(b);
        return u;
    }

    /** The rows the database refused to renew, logged when they change (not every second). */
    private Set<Long> lastRefused = Set.of();

    private void reportRefused(Set<Long> refused) {
        if (!refused.equals(lastRefused)) {
            lastRefused = Set.copyOf(refused);
            if (!refused.isEmpty()) {
                String ids = firstIds(refused);
                LOG.warnf("The database refuses to renew the locks of %d jobs (%s: a trigger or constraint on their rows):"
                        + " their locks lapse, and another node may take them then (those running here may run"
                        + " twice); this node's other locks are renewed", refused.size(), ids);
            }
        }
    }

    /** The lowest 20 ids, for a log line. */
    private static String firstIds(Set<Long> ids) {
        return ids.stream().sorted().limit(20).map(String::valueOf)
                .collect(java.util.stream.Collectors.joining(", ")) + (ids.size() > 20 ? ", ..." : "");
    }

    /** Rows another session kept locked through the last renewal, and those last reported (busy two turns running). */
    private Set<Long> busyLastTurn = Set.of();
    private Set<Long> busyReported = Set.of();

    /**
     * Logs the rows busy through two renewals running, when they change: busy once is ordinary
     * (this node's own completion writing the row); twice, a session holds them.
     */
    private void reportBusy(Set<Long> busy) {
        Set<Long> twice = busy.isEmpty() ? Set.of()
                : busy.stream().filter(busyLastTurn::contains).collect(java.util.stream.Collectors.toUnmodifiableSet());
        busyLastTurn = busy.isEmpty() ? Set.of() : Set.copyOf(busy);
        if (!twice.equals(busyReported)) {
            busyReported = twice;
            if (!twice.isEmpty()) {
                String ids = firstIds(twice);
                LOG.warnf("The locks of %d jobs (%s) were not renewed: another session holds their rows locked (an open"
                        + " transaction that updated or locked them). If it does not end before their leases run out,"
                        + " another node may take them (those running here may run twice); this node's other locks are"
                        + " renewed", twice.size(), ids);
            }
        }
    }

    /** Stops renewing; waits at most {@code max} for a renewal in progress (one hung on a dead connection ignores the interrupt). */
    void stop(java.time.Duration max) throws InterruptedException {
        scheduler.shutdownNow();
        scheduler.awaitTermination(max.toNanos(), TimeUnit.NANOSECONDS);
    }
}
