package io.drover.executor.engine;

import io.drover.executor.store.AcquiredJob;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Leases end with the tenure their outcome belongs to, never a later one of the same row. */
class HeldJobsTest {
    private static final long MINUTE = 60_000_000_000L;

    @Test
    void anEarlierTenuresOutcomeLeavesTheNextLeaseInPlaceWhateverItsState() {
        HeldJobs held = new HeldJobs(MINUTE);
        AcquiredJob first = job(7, 1);
        HeldJobs.Lease earlier = held.acquired(List.of(first), System.nanoTime()).get(0);
        held.completing(earlier);
        // Its outcome committed unseen; the node took the row again, and that run is finishing too.
        HeldJobs.Lease next = held.acquired(List.of(job(7, 3)), System.nanoTime()).get(0);
        held.completing(next);

        held.completed(List.of(first)); // the earlier outcome, written again
        assertThat(held.valid(next)).as("the next tenure's lease").isTrue();
        assertThat(held.snapshot()).containsExactly(7L);

        held.completed(List.of(next.job));
        assertThat(held.size()).isZero();
    }

    @Test
    void stillHeldOnlyWhileEveryTenureIsCurrentAndItsLeaseRuns() {
        HeldJobs held = new HeldJobs(MINUTE);
        AcquiredJob a = job(1, 1);
        AcquiredJob b = job(2, 1);
        held.acquired(List.of(a, b), System.nanoTime());
        assertThat(held.stillHeld(List.of(a, b))).isTrue();

        held.acquired(List.of(job(2, 2)), System.nanoTime()); // row 2 taken again: a later tenure
        assertThat(held.stillHeld(List.of(a, b))).as("an earlier tenure is not held").isFalse();
        assertThat(held.stillHeld(List.of(a))).isTrue();

        held.renewed(List.of(1L), System.nanoTime() - 2 * MINUTE); // a renewal sent two minutes ago
        assertThat(held.stillHeld(List.of(a))).as("its lease ran out").isFalse();
        assertThat(held.stillHeld(List.of(job(3, 1)))).as("never held").isFalse();
    }

    private static AcquiredJob job(long id, int version) {
        return new AcquiredJob(id, version, "noop", "", 0, 3, Instant.now(), null, 0, 0, 0, false);
    }
}
