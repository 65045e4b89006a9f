package io.drover.executor.engine;

import io.drover.executor.store.AcquiredJob;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The jobs this node holds a lock on, from acquisition until their outcome is written (or
 * they are released or lost), each with its lease: how long the lock is certainly still ours,
 * on this node's monotonic clock. The lease starts when the statement that took or renewed the
 * lock was sent (the database sets the expiry later than that, from its own clock) and ends a
 * margin before {@code lockExpiry} runs out. A job whose lease has run out is not started:
 * another node may have swept it already. A frozen node (SIGSTOP, a long GC pause, a suspended
 * VM) wakes up with every lease run out, because the monotonic clock kept going.
 */
final class HeldJobs {
    enum State { QUEUED, RUNNING, COMPLETING }

    private static final class Lease {
        volatile long deadline;
        volatile State state = State.QUEUED;

        Lease(long deadline) {
            this.deadline = deadline;
        }
    }

    private final ConcurrentHashMap<Long, Lease> leases = new ConcurrentHashMap<>();
    private final long leaseNanos;

    HeldJobs(long leaseNanos) {
        this.leaseNanos = leaseNanos;
    }

    void acquired(List<AcquiredJob> jobs, long sentNanos) {
        for (AcquiredJob job : jobs) {
            leases.put(job.id(), new Lease(sentNanos + leaseNanos));
        }
    }

    void renewed(Collection<Long> ids, long sentNanos) {
        for (Long id : ids) {
            Lease l = leases.get(id);
            if (l != null) {
                l.deadline = sentNanos + leaseNanos;
            }
        }
    }

    void running(long id) {
        Lease l = leases.get(id);
        if (l != null) {
            l.state = State.RUNNING;
        }
    }

    /** The job's outcome is on its way to the database; keep renewing until it is written. */
    void completing(long id) {
        Lease l = leases.get(id);
        if (l != null) {
            l.state = State.COMPLETING;
        }
    }

    boolean leaseValid(long id) {
        Lease l = leases.get(id);
        return l != null && System.nanoTime() - l.deadline < 0;
    }

    /**
     * After a renewal: the held jobs the database did not renew have lost their lock. Jobs whose
     * outcome is being written are left alone (their row may just have been deleted); the
     * completion writer counts those itself.
     *
     * @return the jobs dropped, by the state they were in
     */
    List<Long> dropLost(Collection<Long> asked, Set<Long> renewed, State state) {
        List<Long> dropped = new ArrayList<>();
        for (Long id : asked) {
            if (!renewed.contains(id)) {
                Lease l = leases.get(id);
                if (l != null && l.state == state && leases.remove(id, l)) {
                    dropped.add(id);
                }
            }
        }
        return dropped;
    }

    /** Drops queued jobs whose lease ran out (renewals kept failing): they must not start, and their lock lapses. */
    List<Long> dropExpiredQueued() {
        List<Long> dropped = new ArrayList<>();
        long now = System.nanoTime();
        leases.forEach((id, l) -> {
            if (l.state == State.QUEUED && now - l.deadline >= 0 && leases.remove(id, l)) {
                dropped.add(id);
            }
        });
        return dropped;
    }

    /** @return false if it was not held (any more) */
    boolean remove(long id) {
        return leases.remove(id) != null;
    }

    void removeAll(Collection<Long> ids) {
        for (Long id : ids) {
            leases.remove(id);
        }
    }

    List<Long> snapshot() {
        return List.copyOf(leases.keySet());
    }

    int size() {
        return leases.size();
    }
}
