package io.drover.executor.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The gate's rules: jobs side by side, a solo run alone, never starved, and not tied to threads. */
@Timeout(30)
class ExecutionGateTest {
    private final ExecutionGate gate = new ExecutionGate();

    @Test
    void jobsRunSideBySide() throws Exception {
        ExecutionGate.Pass[] passes = new ExecutionGate.Pass[100];
        for (int i = 0; i < passes.length; i++) {
            passes[i] = gate.enter(false);
        }
        CompletableFuture<ExecutionGate.Pass> solo = enterLater(true);
        awaitWaiting(1);
        for (ExecutionGate.Pass p : passes) {
            p.leave();
        }
        solo.get(5, TimeUnit.SECONDS).leave(); // gets in once nothing runs
    }

    @Test
    void aSoloRunWaitsForRunningJobsAndKeepsOutJobsThatArriveMeanwhile() throws Exception {
        ExecutionGate.Pass running = gate.enter(false);
        CompletableFuture<ExecutionGate.Pass> solo = enterLater(true);
        awaitWaiting(1);
        CompletableFuture<ExecutionGate.Pass> late = enterLater(false);
        awaitWaiting(2); // behind the waiting solo run, not beside the running job
        assertThat(solo).isNotDone();

        running.leave();
        ExecutionGate.Pass soloPass = solo.get(5, TimeUnit.SECONDS);
        assertStillWaiting(late); // the solo run runs alone

        soloPass.leave();
        late.get(5, TimeUnit.SECONDS).leave();
    }

    @Test
    void anInterruptedSoloWaiterNoLongerHoldsBackOthers() throws Exception {
        ExecutionGate.Pass running = gate.enter(false);
        CompletableFuture<Throwable> soloEnded = new CompletableFuture<>();
        Thread soloThread = Thread.ofPlatform().daemon().start(() -> {
            try {
                gate.enter(true);
                soloEnded.complete(null);
            } catch (Throwable t) {
                soloEnded.complete(t);
            }
        });
        awaitWaiting(1);
        CompletableFuture<ExecutionGate.Pass> late = enterLater(false);
        awaitWaiting(2);
        soloThread.interrupt();
        assertThat(soloEnded.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        late.get(5, TimeUnit.SECONDS).leave();
        running.leave();
    }

    @Test
    void anotherThreadLeavesTheGateForAWorkerThatWasGivenUpAndTheWorkersOwnLeaveDoesNothing() throws Exception {
        ExecutionGate.Pass stuck = CompletableFuture.supplyAsync(() -> {
            try {
                return gate.enter(true);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }).get(5, TimeUnit.SECONDS);
        CompletableFuture<ExecutionGate.Pass> next = enterLater(false);
        awaitWaiting(1);
        stuck.leave(); // the timeout watch, on behalf of the stuck worker
        ExecutionGate.Pass nextPass = next.get(5, TimeUnit.SECONDS);
        stuck.leave(); // the worker, when its handler finally returns: no second release

        CompletableFuture<ExecutionGate.Pass> solo = enterLater(true);
        awaitWaiting(1);
        assertStillWaiting(solo); // one job runs: the second leave gave back nothing (it would have
        // overflowed the permits, or with a job running let a solo run in beside it)
        nextPass.leave();
        solo.get(5, TimeUnit.SECONDS).leave();
    }

    /** A solo run waits a bounded time for the running jobs, and meanwhile holds back the ones that arrive. */
    @Test
    void aSoloRunThatTheRunningJobsMakeNoRoomForGivesUpAndLetsTheOthersIn() throws Exception {
        ExecutionGate bounded = new ExecutionGate(java.time.Duration.ofMillis(500));
        ExecutionGate.Pass running = bounded.enter(false);
        CompletableFuture<ExecutionGate.Pass> solo = CompletableFuture.supplyAsync(() -> {
            try {
                return bounded.enter(true);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(solo.get(5, TimeUnit.SECONDS)).as("no pass for the solo run").isNull();
        bounded.enter(false).leave(); // the others are let in again
        running.leave();
        ExecutionGate.Pass alone = bounded.enter(true);
        assertThat(alone).as("alone once nothing runs").isNotNull();
        alone.leave();
    }

    /**
     * A stopping node closes the gate: the runs waiting to enter give up at once, for a stopping
     * node starts no job. Behind a solo run that never leaves (its handler called System.exit)
     * they were waited for by the stop until its grace period ran out.
     */
    @Test
    void closingTheGateSendsAwayTheRunsWaitingToEnter() throws Exception {
        ExecutionGate.Pass neverLeaves = gate.enter(true);
        CompletableFuture<ExecutionGate.Pass> waiting = enterLater(false);
        awaitWaiting(1);

        gate.close();
        assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(InterruptedException.class);
        assertThatThrownBy(() -> gate.enter(false)).as("a run that would have to wait, after the close")
                .isInstanceOf(InterruptedException.class);
        assertThat(gate.waiting()).isZero();
        neverLeaves.leave();
        gate.enter(false).leave(); // one that need not wait is not refused: the pool checks for the stop after the gate
    }

    @Test
    void closingTheGateSendsAwayASoloRunWaitingForTheRunningJobs() throws Exception {
        ExecutionGate.Pass running = gate.enter(false);
        CompletableFuture<ExecutionGate.Pass> solo = enterLater(true);
        awaitWaiting(1);

        gate.close();
        assertThatThrownBy(() -> solo.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(InterruptedException.class);
        running.leave();
        gate.enter(false).leave();
    }

    private CompletableFuture<ExecutionGate.Pass> enterLater(boolean solo) {
        CompletableFuture<ExecutionGate.Pass> entered = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                entered.complete(gate.enter(solo));
            } catch (Throwable t) {
                entered.completeExceptionally(t);
            }
        });
        return entered;
    }

    /** Waits until this many runs wait at the gate (they queue in arrival order). */
    private void awaitWaiting(int runs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (gate.waiting() != runs) {
            assertThat(System.nanoTime() - deadline).as("%d runs waiting, not %d", gate.waiting(), runs).isNegative();
            Thread.sleep(5);
        }
    }

    private static void assertStillWaiting(CompletableFuture<ExecutionGate.Pass> entry) {
        assertThatThrownBy(() -> entry.get(200, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
    }
}
