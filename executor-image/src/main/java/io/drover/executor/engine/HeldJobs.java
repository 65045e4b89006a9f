package io.drover.executor.engine;

import io.drover.executor.store.AcquiredJob;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * The jobs this node holds a lock on, from acquisition until their outcome is written (or
 * they are released or lost), each with its lease: how long the lock is certainly still ours,
 * on this node's monotonic clock. The lease starts when the statement that took or renewed the
 * lock was sent (the database sets the expiry later than that, from its own clock) and ends a
 * margin before {@code lockExpiry} runs out. A job whose lease has run out is not started:
 * another node may have swept it already. A frozen node (SIGSTOP, a long GC pause, a suspended
 * VM) wakes up with every lease run out, because the monotonic clock kept going.
 *
 * <p>Each acquisition makes a new {@link Lease} object, and the queue carries it: a job is only
 * ever started, completed or dropped under the lease it was queued with. So a row this node
 * completed and then acquired again (a retry due at once) is not confused with its earlier
 * tenure, and a stale queue entry never runs under a later acquisition's lease.
 */
final class HeldJobs {
    /** DROPPED: let go unstarted; LOST: running when a renewal found its lock gone (counted then). */
    enum State { QUEUED, RUNNING, COMPLETING, DROPPED, LOST }

    private static final AtomicReferenceFieldUpdater<Lease, State> STATE =
            AtomicReferenceFieldUpdater.newUpdater(Lease.class, State.class, "state");

    /** One tenure of one job on this node. */
    static final class Lease {
        final AcquiredJob job;
        volatile long deadline;
        volatile State state = State.QUEUED;
        /**
         * Its start mark is being sent, or was ({@link JobStarter} sets this before it checks the
         * lease one last time and sends): it may be in the row, whatever answer comes.
         * Such a lease is never dropped unstarted ({@link #dropExpiredQueued}): its worker hands
         * the job back (the mark's charge given back if it went in), and until that outcome is
         * written the lease keeps the row from the stray release and this node's sweep, and is
         * renewed. Dropped, a row whose mark had not gone in was released as a stray, and the
         * hand-back, finding the row changed, was counted as a lost lock ("may have run twice").
         */
        volatile boolean markSent;

        private Lease(AcquiredJob job, long deadline) {
            this.job = job;
            this.deadline = deadline;
        }

        long id() {
            return job.id();
        }
    }

    private final ConcurrentHashMap<Long, Lease> leases = new ConcurrentHashMap<>();
    /** Set where a job is dropped unstarted, taken by the acquisition thread ({@link #takeStrays}). */
    private final AtomicBoolean strays = new AtomicBoolean();
    private final long leaseNanos;

    HeldJobs(long leaseNanos) {
        this.leaseNanos = leaseNanos;
    }

    List<Lease> acquired(List<AcquiredJob> jobs, long sentNanos) {
        List<Lease> added = new ArrayList<>(jobs.size());
        for (AcquiredJob job : jobs) {
            Lease l = new Lease(job, sentNanos + leaseNanos);
            leases.put(job.id(), l);
            added.add(l);
        }
        return added;
    }

    /** A statement sent at {@code sentNanos} renewed this tenure's lock: extends its lease, if it is still the current one. */
    void renewed(Lease lease, long sentNanos) {
        if (leases.get(lease.id()) == lease) {
            lease.deadline = sentNanos + leaseNanos;
        }
    }

    /**
     * After a renewal of {@code asked} (a {@link #leases} snapshot) sent at {@code sentNanos}:
     * extends the leases of the tenures it renewed. Matched by tenure, not by id: a row
     * completed and acquired again while the renewal was on its way is a new tenure, whose lease
     * started with its own acquisition.
     */
    void renewed(Collection<Lease> asked, Set<Long> renewed, long sentNanos) {
        for (Lease l : asked) {
            if (renewed.contains(l.id())) {
                renewed(l, sentNanos);
            }
        }
    }

    /** True while this lease is the job's current one here and has not run out. */
    boolean valid(Lease lease) {
        return leases.get(lease.id()) == lease && System.nanoTime() - lease.deadline < 0;
    }

    /**
     * True if each job's tenure is still the current one here and its lease has not run out: no
     * other node can have taken any of them, so the rows are as this node last left them.
     */
    boolean stillHeld(Collection<AcquiredJob> jobs) {
        long now = System.nanoTime();
        for (AcquiredJob job : jobs) {
            Lease l = leases.get(job.id());
            if (l == null || l.job != job || now - l.deadline >= 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * A worker is about to run this queued job: true if its tenure is still current and its lease
     * has not run out, and from then on it counts as running. Atomic against
     * {@link #dropExpiredQueued} and {@link #dropLost}: a job is either dropped unstarted or started, never dropped while
     * it starts, because a row this node no longer holds may be released to other nodes at once
     * ({@link StrayLocks}).
     */
    boolean start(Lease lease) {
        return STATE.compareAndSet(lease, State.QUEUED, State.RUNNING) && valid(lease);
    }

    /**
     * The job's outcome is on its way to the database; keep renewing until it is written. False,
     * and nothing to write, if a renewal found this running job's lock gone: it counted the lock
     * lost, and the outcome, which touches only rows this tenure still holds, would change
     * nothing and be counted lost a second time.
     */
    boolean completing(Lease lease) {
        while (true) {
            State s = lease.state;
            if (s == State.LOST) {
                return false;
            }
            if (STATE.compareAndSet(lease, s, State.COMPLETING)) {
                return true;
            }
        }
    }

    /**
     * After their outcomes were written: ends those tenures, and not a later acquisition of the
     * same rows, whatever its state (an outcome written again after a lost reply may come when
     * the row's next tenure is completing too).
     */
    void completed(Collection<AcquiredJob> jobs) {
        for (AcquiredJob job : jobs) {
            leases.computeIfPresent(job.id(), (k, l) -> l.job == job ? null : l);
        }
    }

    /** @return false if this lease was not the job's current one any more */
    boolean drop(Lease lease) {
        boolean dropped = leases.remove(lease.id(), lease);
        if (dropped) {
            strays.set(true);
        }
        return dropped;
    }

    /**
     * True if a job was dropped unstarted since the last call ({@link #drop},
     * {@link #dropExpiredQueued}): its row may still be locked under this node's owner, though
     * no run of it will come from here ({@link StrayLocks} releases such rows).
     */
    boolean takeStrays() {
        return strays.getAndSet(false);
    }

    /** True if a job was dropped unstarted since the last {@link #takeStrays}. */
    boolean hasStrays() {
        return strays.get();
    }

    /** A release of the strays failed: they are to be released later. */
    void strayed() {
        strays.set(true);
    }

    /**
     * After a renewal: the held jobs the database did not renew have lost their lock. Jobs whose
     * outcome is being written are left alone (their row may just have been deleted); the
     * completion writer counts those itself. Only the tenures asked about are dropped: a row
     * this node completed while the renewal was on its way (so it was not renewed) and then
     * acquired again is a later tenure, whose lock is fine. Dropped by id, the later tenure lost
     * its lease while it ran, was never renewed again, and another node swept the row and ran
     * it a second time, with no fault anywhere (HeldJobsTest).
     *
     * @return the jobs dropped, of the given state
     */
    List<Long> dropLost(Collection<Lease> asked, Set<Long> renewed, State state) {
        List<Long> dropped = new ArrayList<>();
        for (Lease l : asked) {
            if (renewed.contains(l.id()) || !drops(l, state)) {
                continue;
            }
            // A running one is LOST now (its outcome is not written): counted here even if a later
            // tenure of its row already took its place in the map, or no one would count it.
            if (leases.remove(l.id(), l) || state == State.RUNNING) {
                dropped.add(l.id());
            }
        }
        return dropped;
    }

    /** A queued lease is dropped only if no worker starts it meanwhile ({@link #start}). */
    private static boolean drops(Lease l, State state) {
        return switch (state) {
            case QUEUED -> STATE.compareAndSet(l, State.QUEUED, State.DROPPED);
            case RUNNING -> STATE.compareAndSet(l, State.RUNNING, State.LOST); // atomic against completing()
            default -> l.state == state;
        };
    }

    /** True if this lease was dropped unstarted ({@link #dropExpiredQueued}, {@link #dropLost}): no worker starts it. */
    boolean dropped(Lease lease) {
        return lease.state == State.DROPPED;
    }

    /**
     * Drops queued jobs whose lease ran out (renewals kept failing): they must not start, and their
     * lock lapses. Not those whose start mark was sent ({@link Lease#markSent}): their workers hand them back.
     */
    List<Long> dropExpiredQueued() {
        List<Long> dropped = new ArrayList<>();
        long now = System.nanoTime();
        leases.forEach((id, l) -> {
            if (now - l.deadline >= 0 && !l.markSent && STATE.compareAndSet(l, State.QUEUED, State.DROPPED) && leases.remove(id, l)) {
                dropped.add(id);
            }
        });
        if (!dropped.isEmpty()) {
            strays.set(true);
        }
        return dropped;
    }

    /** The ids of the jobs held now. */
    List<Long> snapshot() {
        return List.copyOf(leases.keySet());
    }

    /** The tenures held now, for a renewal: what it renews or finds lost is matched to these. */
    List<Lease> leases() {
        return List.copyOf(leases.values());
    }

    int size() {
        return leases.size();
    }
}
