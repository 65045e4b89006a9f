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
 */
public record Acquisition(List<AcquiredJob> jobs, boolean mayHaveMore) {
    public static final Acquisition NONE = new Acquisition(List.of(), false);
    /** Lost a race or did not get the lock: nothing now, but retry soon. */
    public static final Acquisition CONTENDED = new Acquisition(List.of(), true);
}
