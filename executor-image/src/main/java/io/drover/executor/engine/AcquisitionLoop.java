package io.drover.executor.engine;

import io.drover.contract.DatabaseDiagnosis;
import io.drover.executor.acquire.Acquisition;
import io.drover.executor.acquire.AcquisitionStrategy;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.LockMaintenance;
import io.drover.executor.store.RefusedRows;
import io.drover.executor.store.SqlErrors;
import org.jboss.logging.Logger;
import org.postgresql.PGConnection;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The one thread per node that takes due jobs from the database into the queue.
 *
 * <p>Each cycle: wait for free queue slots, lock at most that many jobs (never more than the
 * queue can hold), enqueue them. A worker frees its slot when it takes a job, so the queue alone
 * does not bound the jobs whose outcomes wait to be written: when the database writes outcomes
 * slower than the workers make them, the loop pauses while more than
 * {@code maxUnwrittenOutcomes} wait. Without that pause a node once held 225,000 finished jobs
 * (a 400,000-job drain in the local cluster): each renewal rewrote every one of them and
 * blocked the deletes, which then fell further behind, until autovacuum broke the circle. When the cycle saw as many due jobs as it asked for it goes
 * again at once; otherwise it sleeps until the next timer is due, at most
 * {@code acquireInterval}. A wake-up (a notification of inserted or released jobs, the node's
 * own API) cuts the sleep short, and a cycle starts a little after {@link JobSql#NOTIFY_INTERVAL}
 * past each wake-up before the loop sleeps, because a producer that notified does not notify
 * again for its inserts within that interval. A database error never ends the loop: it backs
 * off and retries, so a node keeps working after a database failover. Rows locked for this node that
 * it no longer holds (an acquisition the server ran after the node gave up on it, queued jobs
 * dropped when their lease ran out) are released between cycles ({@link StrayLocks}).
 */
final class AcquisitionLoop {
    private static final Logger LOG = Logger.getLogger(AcquisitionLoop.class);
    private static final long MIN_IDLE_MILLIS = 5;
    private static final long MAX_ERROR_BACKOFF_MILLIS = 10_000;
    /**
     * The second look after a wake-up: past the producers' notify interval, plus a margin
     * for a commit that was under way when the interval ended.
     */
    static final long AFTER_WAKE_MILLIS = JobSql.NOTIFY_INTERVAL.toMillis() + 5;
    private static final long AFTER_WAKE_NANOS = TimeUnit.MILLISECONDS.toNanos(AFTER_WAKE_MILLIS);

    private final DataSource dataSource;
    private final AcquisitionStrategy strategy;
    private final WorkerPool pool;
    private final HeldJobs held;
    private final DatabaseHealth database;
    private final Heartbeats.Beat beat;
    private final ExecutorMetrics metrics;
    private final int pageSize;
    /**
     * Refill when half a page is free: waiting for a whole page leaves workers idle, while
     * acquiring a handful at a time costs a round trip (and a global lock turn) per handful.
     */
    private final int refillAt;
    private final OutcomeBacklog unwrittenOutcomes;
    private final int maxUnwrittenOutcomes;
    private final long intervalMillis;
    private final String nextDueSql;
    private final String nextDueLeavingOutSql;
    /** Due rows the database refused to lock, which the strategy leaves out for a while: so does the idle look. */
    private final RefusedRows refused;
    private final StrayLocks strays;
    private final UnstartedRelease unstarted;
    private final ProblemLog strayProblems = new ProblemLog(LOG, "Releasing stray job locks");
    private final ProblemLog problems = new ProblemLog(LOG, "Acquiring jobs");
    /**
     * The idle look at the next due time, apart from the acquisitions': its failure is logged and
     * told to DatabaseHealth, but it is no failed acquisition. Counted as one, it stayed the last
     * word while the queue had no room for a page (no acquisition runs then to clear it), and a
     * node busy with long jobs read unready for as long, its database answering.
     */
    private final ProblemLog idleProblems = new ProblemLog(LOG, "Looking when the next job is due");
    private final Thread thread;
    private final Object wakeUp = new Object();
    private volatile boolean stopping;
    /** Set by wakeUp(); an idle wait that finds it set does not sleep (no lost wake-ups). */
    private boolean wakeRequested;
    /** When the last wake-up came (System.nanoTime()), guarded by wakeUp: its second look is due AFTER_WAKE later. */
    private long lastWakeNanos = System.nanoTime() - TimeUnit.HOURS.toNanos(1);
    private volatile long lastSuccessNanos = System.nanoTime();
    /** What the latest cycle's failure says about the database; null after a cycle that worked. */
    private volatile DatabaseDiagnosis failing;

    /**
     * @param unwrittenOutcomes    outcomes waiting for the completion loop (not the batch it is writing)
     * @param maxUnwrittenOutcomes no acquisition while more than this many wait
     */
    AcquisitionLoop(DataSource dataSource, AcquisitionStrategy strategy, WorkerPool pool, HeldJobs held,
                    DatabaseHealth database, Heartbeats heartbeats, ExecutorMetrics metrics, int pageSize,
                    OutcomeBacklog unwrittenOutcomes, int maxUnwrittenOutcomes, Duration interval, JobSql sql,
                    LockMaintenance maintenance, UnstartedRelease unstarted, String nodeName) {
        this.dataSource = dataSource;
        this.strategy = strategy;
        this.pool = pool;
        this.held = held;
        this.database = database;
        this.beat = heartbeats.register("acquisition");
        this.metrics = metrics;
        this.pageSize = Math.min(pageSize, pool.capacity());
        this.refillAt = Math.max(1, this.pageSize / 2);
        this.unwrittenOutcomes = unwrittenOutcomes;
        this.maxUnwrittenOutcomes = maxUnwrittenOutcomes;
        this.intervalMillis = interval.toMillis();
        this.nextDueSql = sql.nextDue();
        this.nextDueLeavingOutSql = sql.nextDueLeavingOut();
        this.refused = strategy.leftOut();
        this.strays = new StrayLocks(maintenance, held);
        this.unstarted = unstarted;
        this.thread = Thread.ofPlatform().name("drover-acquirer-" + nodeName).unstarted(beat.guarded(this::run, LOG));
    }

    void start() {
        thread.start();
    }

    private void run() {
        long errorBackoff = 100;
        while (!stopping) {
            beat.beat();
            try {
                if (cycle()) {
                    errorBackoff = 100;
                }
            } catch (InterruptedException e) {
                // stop() interrupts; the loop condition decides
            } catch (Exception e) {
                database.failed(e);
                failing = DatabaseDiagnosis.of(e);
                metrics.acquisitionError();
                problems.failed(e);
                sleepQuietly(errorBackoff);
                errorBackoff = Math.min(errorBackoff * 2, MAX_ERROR_BACKOFF_MILLIS);
            }
        }
    }

    /**
     * One cycle: reserve queue slots, take a page into them, then wait for the next one if this
     * page was not full. The slots no job took are given back however the cycle ends.
     *
     * @return whether it took a page (false: outcomes behind, the queue full, the node stopping;
     *         the loop then checks whether it stops)
     */
    private boolean cycle() throws Exception {
        if (!unwrittenOutcomes.awaitAtMost(maxUnwrittenOutcomes, intervalMillis)) {
            return false; // the database is behind with outcomes: take no more
        }
        int reserved = pool.reserve(refillAt, pageSize, intervalMillis);
        if (reserved == 0) {
            return false; // queue still full
        }
        int queued = 0;
        long start;
        Acquisition acquisition;
        try {
            synchronized (wakeUp) {
                wakeRequested = false; // this cycle sees every job committed before this point
            }
            settleStrays();
            if (stopping) {
                return false; // a stop that began while the release ran (its wait is bounded): no new page
            }
            start = System.nanoTime();
            try (Connection c = dataSource.getConnection()) {
                acquisition = acquire(c, reserved);
            }
            lastSuccessNanos = System.nanoTime();
            List<HeldJobs.Lease> leases = held.acquired(acquisition.jobs(), acquisition.sentNanos());
            metrics.acquisition(lastSuccessNanos - start, acquisition.jobs().size());
            problems.succeeded();
            database.succeeded();
            failing = null;
            if (stopping) {
                // The node began to stop while this page was on its way (a statement that
                // outlived the stop's wait for it): no worker takes a job any more, and queued
                // after the stop's release it stayed locked until its locks lapsed.
                // The stop's interrupt stays set through JDBC calls: cleared for the release's
                // pauses between tries, then set again for the loop to end.
                boolean interrupted = Thread.interrupted();
                try {
                    unstarted.release(unstarted.drop(leases), "jobs acquired as the node began to stop");
                } finally {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
                return false;
            }
            pool.enqueue(leases);
            queued = leases.size();
        } finally {
            pool.unreserve(reserved - queued);
        }
        if (!acquisition.mayHaveMore()) {
            long lookAgainIn = lookAgainInMillis(start);
            if (lookAgainIn > 0) {
                pause(lookAgainIn);
            } else {
                idle();
            }
        }
        return true;
    }

    /**
     * Releases stray locks when there may be some ({@link StrayLocks}), on a connection of its
     * own. Its failure is not the acquisition's: logged apart, tried again at a later cycle.
     */
    private void settleStrays() {
        if (!strays.due()) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            strays.settle(c);
            strayProblems.succeeded();
        } catch (SQLException e) {
            database.failed(e);
            strayProblems.failed(e);
        }
    }

    private Acquisition acquire(Connection c, int jobs) throws SQLException, InterruptedException {
        // Asked before: once a call failed, the pool's wrapper refuses even to be unwrapped.
        int session = c.unwrap(PGConnection.class).getBackendPID();
        try {
            return strategy.acquire(c, jobs);
        } catch (SQLException e) {
            if (SqlErrors.connectionLost(e)) {
                strays.unanswered(session); // the server may run it yet, and lock a page for nobody
            }
            throw e;
        }
    }

    /**
     * Sleeps until the next unlocked job is due, or acquireInterval, or a wake-up; or until it is
     * time to look whether an unanswered acquisition's session has ended.
     */
    private void idle() throws InterruptedException {
        long wait = Math.min(intervalMillis, strays.nextCheckInMillis());
        RefusedRows.Choice statement = refused.choose(nextDueSql, nextDueLeavingOutSql);
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(statement.sql())) {
            statement.bind(c, ps, 1);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    long nextDue = rs.getLong(1);
                    if (!rs.wasNull()) {
                        wait = Math.min(wait, Math.max(MIN_IDLE_MILLIS, nextDue));
                    }
                }
            }
            idleProblems.succeeded();
        } catch (SQLException e) {
            database.failed(e);
            idleProblems.failed(e);
        }
        pause(wait);
    }

    /** Waits {@code millis} unless a wake-up came (or comes) first. */
    private void pause(long millis) throws InterruptedException {
        synchronized (wakeUp) {
            if (!stopping && !wakeRequested) {
                wakeUp.wait(millis);
            }
        }
    }

    /**
     * Before sleeping after a cycle that started at {@code cycleStart}: milliseconds until the
     * second look that the last wake-up asks for, or 0 when no cycle is needed for it (no wake-up
     * lately, or this cycle started after that look was due and saw every commit before it).
     * Every node that was woken looks again, whether its woken cycle got the announced jobs or
     * not: a cycle of its own may have taken them just before the wake-up arrived.
     */
    private long lookAgainInMillis(long cycleStart) {
        synchronized (wakeUp) {
            long due = lastWakeNanos + AFTER_WAKE_NANOS;
            if (cycleStart - due >= 0) {
                return 0;
            }
            return Math.max(1, TimeUnit.NANOSECONDS.toMillis(due - System.nanoTime() + 999_999));
        }
    }

    /** Cuts an idle wait short: jobs were inserted or released (notification, local API). */
    void wakeUp() {
        synchronized (wakeUp) {
            lastWakeNanos = System.nanoTime();
            wakeRequested = true;
            wakeUp.notifyAll();
        }
    }

    private void sleepQuietly(long millis) {
        try {
            synchronized (wakeUp) {
                if (!stopping) {
                    wakeUp.wait(millis);
                }
            }
        } catch (InterruptedException ignored) {
            // stop() interrupts; the loop condition decides
        }
    }

    /** Why the latest cycle failed, in a status's words; null when it worked. */
    DatabaseDiagnosis failing() {
        return failing;
    }

    /** True while the node acquires successfully (its last cycle succeeded within the window). */
    boolean healthy(Duration window) {
        return problems.consecutiveFailures() == 0 || System.nanoTime() - lastSuccessNanos < window.toNanos();
    }

    /**
     * Stops the loop and waits for it at most {@code max}: a statement hung on a dead connection
     * ignores the interrupt, and the stop's grace period must not wait for it. A page such a
     * statement takes after the wait is released by this loop, not run here (UnstartedRelease).
     */
    void stop(java.time.Duration max) throws InterruptedException {
        stopping = true;
        thread.interrupt();
        wakeUp();
        thread.join(max);
    }
}
