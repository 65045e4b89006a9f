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

    private static AcquiredJob job(long id, int version) {
        return new AcquiredJob(id, version, "noop", "", 0, 3, Instant.now(), null, 0, 0, 0, false);
    }
}
