package io.drover.executor.engine;

import io.drover.executor.store.AcquiredJob;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Set;

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

    /**
     * A queued job whose lease ran out is dropped unstarted, unless its start mark was sent: the
     * mark may be in the row, and its worker hands the job back. Dropped, its row was released as
     * a stray, and the hand-back, finding the row changed, counted a lost lock (LostStartMarkReplyTest).
     */
    @Test
    void aLeaseWhoseStartMarkWasSentIsNotDroppedWhenItRunsOut() {
        HeldJobs held = new HeldJobs(MINUTE);
        List<HeldJobs.Lease> leases = held.acquired(List.of(job(1, 1), job(2, 1)), System.nanoTime() - 2 * MINUTE);
        leases.get(1).markSent = true;
        assertThat(held.dropExpiredQueued()).containsExactly(1L);
        assertThat(held.snapshot()).containsExactly(2L);
        assertThat(held.takeStrays()).as("the dropped one's row is a stray").isTrue();
        assertThat(held.completing(leases.get(1))).as("its hand-back is written").isTrue();
    }

    @Test
    void stillHeldOnlyWhileEveryTenureIsCurrentAndItsLeaseRuns() {
        HeldJobs held = new HeldJobs(MINUTE);
        AcquiredJob a = job(1, 1);
        AcquiredJob b = job(2, 1);
        HeldJobs.Lease leaseOfA = held.acquired(List.of(a, b), System.nanoTime()).get(0);
        assertThat(held.stillHeld(List.of(a, b))).isTrue();

        held.acquired(List.of(job(2, 2)), System.nanoTime()); // row 2 taken again: a later tenure
        assertThat(held.stillHeld(List.of(a, b))).as("an earlier tenure is not held").isFalse();
        assertThat(held.stillHeld(List.of(a))).isTrue();

        held.renewed(leaseOfA, System.nanoTime() - 2 * MINUTE); // a renewal sent two minutes ago
        assertThat(held.stillHeld(List.of(a))).as("its lease ran out").isFalse();
        assertThat(held.stillHeld(List.of(job(3, 1)))).as("never held").isFalse();
    }

    @Test
    void aRenewalThatMissedAnEarlierTenureLeavesTheNextOneAlone() {
        HeldJobs held = new HeldJobs(MINUTE);
        AcquiredJob first = job(7, 1);
        HeldJobs.Lease earlier = held.acquired(List.of(first), System.nanoTime()).get(0);
        assertThat(held.start(earlier)).isTrue();
        List<HeldJobs.Lease> asked = held.leases(); // the renewer's snapshot, then its statement is slow
        long sent = System.nanoTime() - MINUTE / 2;

        // Meanwhile the run fails, its retry (due at once) commits before the renewal reaches the
        // row, so the row is not renewed; the node takes the row again and runs it.
        held.completing(earlier);
        held.completed(List.of(first));
        HeldJobs.Lease next = held.acquired(List.of(job(7, 3)), System.nanoTime()).get(0);
        assertThat(held.start(next)).isTrue();

        held.renewed(asked, Set.of(), sent);
        assertThat(held.dropLost(asked, Set.of(), HeldJobs.State.RUNNING)).as("the earlier tenure, already gone").isEmpty();
        assertThat(held.valid(next)).as("the next tenure keeps its lease, and is renewed from now on").isTrue();
        assertThat(held.leases()).containsExactly(next);

        // Renewed by a statement that had reached its row: the earlier tenure's answer does not touch the next.
        held.renewed(asked, Set.of(7L), System.nanoTime() - 2 * MINUTE);
        assertThat(held.valid(next)).isTrue();

        // A tenure the renewal really lost is dropped.
        held.dropLost(held.leases(), Set.of(), HeldJobs.State.RUNNING);
        assertThat(held.valid(next)).isFalse();
    }

    @Test
    void aQueuedJobIsEitherDroppedAtItsLeasesEndOrStartedNeverBoth() {
        HeldJobs held = new HeldJobs(MINUTE);
        long twoMinutesAgo = System.nanoTime() - 2 * MINUTE;
        List<HeldJobs.Lease> lapsed = held.acquired(List.of(job(1, 1), job(2, 1)), twoMinutesAgo);

        assertThat(held.start(lapsed.get(0))).as("a lapsed lease does not start").isFalse();
        assertThat(held.dropExpiredQueued()).as("the one a worker tried to start is no longer queued").containsExactly(2L);
        assertThat(held.start(lapsed.get(1))).as("a dropped job does not start").isFalse();

        HeldJobs.Lease running = held.acquired(List.of(job(3, 1)), System.nanoTime()).get(0);
        assertThat(held.start(running)).isTrue();
        held.renewed(running, twoMinutesAgo); // its renewals failed since
        assertThat(held.dropExpiredQueued()).as("a started job is never dropped as unstarted").isEmpty();
        assertThat(held.dropLost(held.leases(), Set.of(), HeldJobs.State.QUEUED)).as("nor as queued and lost").isEmpty();
        assertThat(held.snapshot()).contains(3L);
    }

    /**
     * A running job whose lock a renewal found gone is counted lost then; when it finishes, its
     * outcome is not written (it would touch nothing, and the writer counted it lost again). A
     * job whose outcome is on its way is never dropped as lost.
     */
    @Test
    void aRunningJobFoundLostHasNoOutcomeToWriteAndOneCompletingIsNeverFoundLost() {
        HeldJobs held = new HeldJobs(MINUTE);
        HeldJobs.Lease lost = held.acquired(List.of(job(1, 1)), System.nanoTime()).get(0);
        HeldJobs.Lease finishing = held.acquired(List.of(job(2, 1)), System.nanoTime()).get(0);
        assertThat(held.start(lost)).isTrue();
        assertThat(held.start(finishing)).isTrue();
        assertThat(held.completing(finishing)).isTrue();

        assertThat(held.dropLost(held.leases(), Set.of(), HeldJobs.State.RUNNING)).containsExactly(1L);
        assertThat(held.completing(lost)).as("the lost job's outcome: nothing to write").isFalse();
        assertThat(held.leases()).containsExactly(finishing);

        // Found lost after a later tenure of its row took its place: counted all the same.
        HeldJobs.Lease earlier = held.acquired(List.of(job(3, 1)), System.nanoTime()).get(0);
        assertThat(held.start(earlier)).isTrue();
        List<HeldJobs.Lease> asked = List.of(earlier);
        HeldJobs.Lease later = held.acquired(List.of(job(3, 2)), System.nanoTime()).get(0);
        assertThat(held.dropLost(asked, Set.of(), HeldJobs.State.RUNNING)).containsExactly(3L);
        assertThat(held.completing(earlier)).isFalse();
        assertThat(held.leases()).as("the later tenure untouched").contains(later);
    }

    private static AcquiredJob job(long id, int version) {
        return new AcquiredJob(id, version, "noop", "", 0, 3, Instant.now(), null, 0, 0, 0, false);
    }
}
