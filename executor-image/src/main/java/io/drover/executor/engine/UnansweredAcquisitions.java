package io.drover.executor.engine;

import io.drover.executor.store.LockMaintenance;
import org.jboss.logging.Logger;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Acquisitions whose answer this node never got, and the locks they may have left behind.
 *
 * <p>A request whose connection broke on its way (the socket timeout of a stalled server, a
 * reset) may still run: a stalled server (a storage stall, a paused VM) runs the requests it
 * kept when it resumes, and an acquisition run then locks a page of jobs for this node, which
 * never learns of it. Nobody runs those jobs until their lock expires and a sweep recovers them:
 * {@code lockExpiry} and a sweep interval later. This node releases them as soon as it knows
 * that no such request can still run: once the server sessions it sent them on have ended.
 *
 * <p>Only the acquisition thread uses this, between its acquisitions: no acquisition of this
 * node is then under way, so a row locked under this node's owner that it does not hold was
 * locked by one of those requests (or its lease ran out queued, and it never started). Started
 * rows are left alone ({@link io.drover.executor.store.JobSql#releaseUnheld}).
 */
final class UnansweredAcquisitions {
    private static final Logger LOG = Logger.getLogger(UnansweredAcquisitions.class);
    /** Sessions remembered at most; an older one's late page is left to the sweep. */
    static final int MAX_SESSIONS = 64;
    private static final long CHECK_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final LockMaintenance maintenance;
    private final HeldJobs held;
    /** Server session (pid) of each unanswered request, and when the node gave up on it (System.nanoTime()). */
    private final Map<Integer, Long> sessions = new LinkedHashMap<>();
    private long nextCheck = System.nanoTime();

    UnansweredAcquisitions(LockMaintenance maintenance, HeldJobs held) {
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

    /** How long an idle acquirer may sleep before it is to look again: forever, unless sessions are pending. */
    long nextCheckInMillis() {
        if (sessions.isEmpty()) {
            return Long.MAX_VALUE;
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(nextCheck - System.nanoTime()));
    }

    /**
     * Between acquisitions: forgets the sessions that have ended, and once none is left, releases
     * what their late requests locked. At most every half second while sessions run.
     *
     * @return the jobs released
     */
    int settle(Connection c) throws SQLException {
        long now = System.nanoTime();
        if (sessions.isEmpty() || now - nextCheck < 0) {
            return 0;
        }
        nextCheck = now + CHECK_EVERY_NANOS;
        int[] pids = new int[sessions.size()];
        long[] ages = new long[pids.length];
        int i = 0;
        for (Map.Entry<Integer, Long> s : sessions.entrySet()) {
            pids[i] = s.getKey();
            ages[i++] = TimeUnit.NANOSECONDS.toMillis(now - s.getValue());
        }
        Set<Integer> running = LockMaintenance.sessionsStillRunning(c, pids, ages);
        sessions.keySet().retainAll(running);
        if (!sessions.isEmpty()) {
            return 0;
        }
        int released = maintenance.releaseUnheld(c, held.snapshot());
        if (released > 0) {
            LOG.infof("Released %d jobs that the database locked for this node after it had given up on the"
                    + " acquisition (run late by a stalled server): any node can take them now", released);
        }
        return released;
    }
}
