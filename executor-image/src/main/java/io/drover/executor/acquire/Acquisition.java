package io.drover.executor.acquire;

import io.drover.executor.store.AcquiredJob;

import java.util.List;

/**
 * The result of one acquisition cycle.
 *
 * @param jobs the jobs now locked by this node
 * @param mayHaveMore true when the cycle saw as many due jobs as it asked for, so the loop
 *     should go again at once instead of idling (compared with what was asked for this cycle,
 *     not the configured page size: a cycle capped by free queue slots is not a sign of an
 *     empty table)
 * @param sentNanos System.nanoTime() just before the statement that locked the jobs was sent:
 *     their lease counts from there (the database set their expiry from its own clock, later).
 *     Not from the cycle's start: in Global mode the cycle may first wait up to
 *     globalLockWaitTime for the lock, and a page taken after a long wait arrived with its
 *     leases run out and was dropped unstarted. Meaningless without jobs.
 */
public record Acquisition(List<AcquiredJob> jobs, boolean mayHaveMore, long sentNanos) {
    public static final Acquisition NONE = new Acquisition(List.of(), false, 0);
    /** Lost a race or did not get the lock: nothing now, but retry soon. */
    public static final Acquisition CONTENDED = new Acquisition(List.of(), true, 0);
}
