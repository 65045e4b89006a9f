package io.drover.executor.engine;

import io.drover.executor.store.LockMaintenance;
import io.drover.executor.store.SqlErrors;
import org.jboss.logging.Logger;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Rows locked under this node's owner id that it does not hold, released so that any node can
 * take them now rather than after their lock expired and a sweep came (with the sweep's quiet
 * period after an outage, some 20 s more with a 10 s lockExpiry). Two faults leave them:
 * <ul>
 *   <li><b>An acquisition that got no answer.</b> A request whose connection broke on its way
 *   (the socket timeout of a stalled server, a reset) may still run: a stalled server (a storage
 *   stall, a paused VM) runs the requests it kept when it resumes, and an acquisition run then
 *   locks a page for this node, which never learns of it. Its rows are released once no such
 *   request can still run: once the server sessions it was sent on have ended.</li>
 *   <li><b>Queued jobs dropped unstarted</b> when their lease ran out (renewals failed through an
 *   outage, or the node was frozen): {@link HeldJobs#takeStrays}.</li>
 * </ul>
 *
 * <p>Only the acquisition thread uses this, between its acquisitions: no acquisition of this
 * node is then on its way, and a queued job is either dropped or started, never both
 * ({@link HeldJobs#start}); so a row locked under this node's owner that is not in its held set
 * is one of the above, and no run of it will come from here. Rows with a start mark are left to
 * the sweep, which counts their crash ({@link io.drover.executor.store.JobSql#releaseUnheld}).
 */
final class StrayLocks {
    private static final Logger LOG = Logger.getLogger(StrayLocks.class);
    /** Sessions remembered at most; an older one's late page is left to the sweep. */
    private static final int MAX_SESSIONS = 64;
    private static final long CHECK_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /**
     * A session is forgotten this long after the node gave up on it, running or not: the server
     * ends a session whose client is gone within about a minute once it runs (statement timeout,
     * TCP keepalive), so one still seen as running is most likely not that session; a page it
     * locks later is left to the sweep.
     */
    private static final long FORGET_AFTER_NANOS = TimeUnit.MINUTES.toNanos(10);

    private final LockMaintenance maintenance;
    private final HeldJobs held;
    /** Server session (pid) of each unanswered acquisition, and when the node gave up on it (System.nanoTime()). */
    private final Map<Integer, Long> sessions = new LinkedHashMap<>();
    private long nextCheck = System.nanoTime();
    /** No release before this (System.nanoTime()): set after one failed. */
    private long nextRelease = System.nanoTime();
    /** Sessions have ended since the last release: their late pages are to be released. */
    private boolean sessionsEnded;

    StrayLocks(LockMaintenance maintenance, HeldJobs held) {
        this.maintenance = maintenance;
        this.held = held;
    }

    /**
     * The acquisition sent on server session {@code pid} got no answer (its connection was lost):
     * the session may still run it.
     */
    void unanswered(int pid) {
        sessions.remove(pid);
        sessions.put(pid, System.nanoTime());
        if (sessions.size() > MAX_SESSIONS) {
            Iterator<Integer> eldest = sessions.keySet().iterator();
            eldest.next();
            eldest.remove();
        }
    }

    /** True if {@link #settle} has something to do now: sessions to look up, or strays to release. */
    boolean due() {
        long now = System.nanoTime();
        return lookUpDue(now) || ((sessionsEnded || held.hasStrays()) && now - nextRelease >= 0);
    }

    /** True if unanswered sessions wait to be looked up, and the last look was half a second ago or more. */
    private boolean lookUpDue(long now) {
        return !sessions.isEmpty() && now - nextCheck >= 0;
    }

    /**
     * How long an idle acquirer may sleep before it is to look again: forever, unless sessions
     * are pending, or strays wait for their next release (one that skipped rows another
     * transaction held, tried again half a second later).
     */
    long nextCheckInMillis() {
        long now = System.nanoTime();
        long next = Long.MAX_VALUE;
        if (!sessions.isEmpty()) {
            next = nextCheck - now;
        }
        if (sessionsEnded || held.hasStrays()) {
            next = Math.min(next, nextRelease - now);
        }
        return next == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(1, TimeUnit.NANOSECONDS.toMillis(next));
    }

    /**
     * Between acquisitions: forgets the unanswered sessions that have ended (looked up at most
     * every half second), and releases the stray rows if there may be some: queued jobs dropped,
     * or a session ended (its late page, if any, is committed by now). A session still running may
     * lock a page after the release: it is released when that session has ended. A release that
     * fails is tried again half a second later, unless the database refused a row of it (a
     * trigger): those are left to the sweep.
     *
     * @return the jobs released
     */
    int settle(Connection c) throws SQLException {
        long now = System.nanoTime();
        if (lookUpDue(now)) {
            nextCheck = now + CHECK_EVERY_NANOS;
            int[] pids = new int[sessions.size()];
            long[] ages = new long[pids.length];
            int i = 0;
            for (Map.Entry<Integer, Long> s : sessions.entrySet()) {
                pids[i] = s.getKey();
                ages[i++] = TimeUnit.NANOSECONDS.toMillis(now - s.getValue());
            }
            Set<Integer> running = LockMaintenance.sessionsStillRunning(c, pids, ages);
            sessionsEnded |= sessions.keySet().retainAll(running);
            sessionsEnded |= sessions.values().removeIf(gaveUp -> now - gaveUp > FORGET_AFTER_NANOS);
        }
        if (now - nextRelease < 0 || !(held.takeStrays() | sessionsEnded)) {
            return 0;
        }
        sessionsEnded = false;
        int released;
        try {
            var snapshot = held.snapshot();
            released = maintenance.releaseUnheld(c, snapshot);
            if (maintenance.unheldLeft(c, snapshot)) {
                // Rows another transaction had locked were skipped (a late renewal still running):
                // another look half a second after this one ended. Without it a release that
                // skipped them all released none, and they waited for their lock to expire and a
                // sweep. Only rows whose lock has not expired count: those are the sweep's, so a
                // row held for long (an open transaction, a trigger that drops the update) is
                // looked at again for at most lockExpiry.
                held.strayed();
                nextRelease = System.nanoTime() + CHECK_EVERY_NANOS;
            }
        } catch (SQLException | RuntimeException e) {
            nextRelease = now + CHECK_EVERY_NANOS;
            if (!SqlErrors.rowRefused(e)) {
                held.strayed();
            }
            throw e;
        }
        if (released > 0) {
            LOG.infof("Released %d jobs locked for this node that it no longer holds (queued ones dropped when their"
                    + " lease ran out, or a page the database locked after the node had given up on the request):"
                    + " any node can take them now", released);
        }
        return released;
    }
}
