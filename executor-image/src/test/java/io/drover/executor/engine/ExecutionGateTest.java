package io.drover.executor.engine;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The gate's rules: jobs side by side, a solo run alone, never starved, and not tied to threads. */
class ExecutionGateTest {
    private final ExecutionGate gate = new ExecutionGate();

    @Test
    void jobsRunSideBySide() throws Exception {
        for (int i = 0; i < 100; i++) {
            gate.enter(false);
        }
        for (int i = 0; i < 100; i++) {
            gate.exit(false);
        }
        gate.enter(true); // and then nothing runs: a solo run gets in at once
        gate.exit(true);
    }

    @Test
    void aSoloRunWaitsForRunningJobsAndKeepsOutJobsThatArriveMeanwhile() throws Exception {
        gate.enter(false);
        CompletableFuture<Void> solo = enterLater(true);
        assertStillWaiting(solo);
        CompletableFuture<Void> late = enterLater(false);
        assertStillWaiting(late); // behind the waiting solo run, not beside the running job

        gate.exit(false);
        solo.get(5, TimeUnit.SECONDS);
        assertStillWaiting(late); // the solo run runs alone

        gate.exit(true);
        late.get(5, TimeUnit.SECONDS);
        gate.exit(false);
    }

    @Test
    void anInterruptedSoloWaiterNoLongerHoldsBackOthers() throws Exception {
        gate.enter(false);
        CountDownLatch waiting = new CountDownLatch(1);
        Thread soloThread = Thread.ofPlatform().start(() -> {
            waiting.countDown();
            assertThatThrownBy(() -> gate.enter(true)).isInstanceOf(InterruptedException.class);
        });
        waiting.await();
        Thread.sleep(100);
        CompletableFuture<Void> late = enterLater(false);
        assertStillWaiting(late);
        soloThread.interrupt();
        soloThread.join(5000);
        late.get(5, TimeUnit.SECONDS);
    }

    @Test
    void anotherThreadLeavesTheGateForAWorkerThatWasGivenUp() throws Exception {
        CompletableFuture.runAsync(() -> {
            try {
                gate.enter(true);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }).get(5, TimeUnit.SECONDS);
        CompletableFuture<Void> next = enterLater(false);
        assertStillWaiting(next);
        gate.exit(true); // the timeout watch, on behalf of the stuck worker
        next.get(5, TimeUnit.SECONDS);
    }

    private CompletableFuture<Void> enterLater(boolean solo) {
        CompletableFuture<Void> entered = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                gate.enter(solo);
                entered.complete(null);
            } catch (Throwable t) {
                entered.completeExceptionally(t);
            }
        });
        return entered;
    }

    private static void assertStillWaiting(CompletableFuture<Void> entry) throws Exception {
        assertThatThrownBy(() -> entry.get(200, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        assertThat(entry).isNotDone();
    }
}
