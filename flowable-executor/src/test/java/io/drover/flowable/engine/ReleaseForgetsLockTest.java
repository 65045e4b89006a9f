package io.drover.flowable.engine;

import org.flowable.common.engine.api.lock.LockManager;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The global acquire lock after a release that failed: Flowable's manager still believes it
 * holds the lock and answers "acquired" without asking the database, while the other nodes take
 * it over after globalLockMaxHold. The node must ask again. The managers here stand in for
 * Flowable's (whose believing-after-failure is its LockManagerImpl's {@code hasAcquiredLock}).
 */
class ReleaseForgetsLockTest {
    /** A manager as Flowable's behaves: acquired once, it answers true until a release succeeds. */
    static final class Believing implements LockManager {
        boolean held;
        boolean releaseFails;
        int askedTheDatabase;

        @Override
        public void waitForLock(Duration waitTime) {
            if (!acquireLock()) {
                throw new IllegalStateException("lock not acquired");
            }
        }

        @Override
        public boolean acquireLock() {
            if (!held) {
                askedTheDatabase++;
                held = true;
            }
            return true;
        }

        @Override
        public boolean acquireLock(Duration lockForceAcquireAfter) {
            return acquireLock();
        }

        @Override
        public void releaseLock() {
            if (releaseFails) {
                throw new IllegalStateException("database away");
            }
            held = false;
        }

        @Override
        public void releaseAndDeleteLock() {
            releaseLock();
        }

        @Override
        public <T> T waitForLockRunAndRelease(Duration waitTime, Supplier<T> supplier) {
            throw new AssertionError("the wrapper runs the cycle itself, through its own release");
        }
    }

    @Test
    void aFailedReleaseMakesTheNodeAskForTheLockAgain() {
        List<Believing> made = new ArrayList<>();
        ReleaseForgetsLock lock = new ReleaseForgetsLock(makingInto(made));
        assertThat(lock.waitForLockRunAndRelease(Duration.ofSeconds(1), () -> 1)).isEqualTo(1);
        made.get(0).releaseFails = true;
        assertThatThrownBy(() -> lock.waitForLockRunAndRelease(Duration.ofSeconds(1), () -> 2)).hasMessage("database away");

        assertThat(lock.acquireLock()).isTrue();
        assertThat(made).as("a fresh manager after the failed release").hasSize(2);
        assertThat(made.get(1).askedTheDatabase).as("the next acquisition asks the database").isEqualTo(1);
        assertThat(made.get(0).askedTheDatabase).as("the believing one is asked no more").isEqualTo(2);
    }

    @Test
    void releasesThatSucceedKeepTheOneManager() {
        List<Believing> made = new ArrayList<>();
        ReleaseForgetsLock lock = new ReleaseForgetsLock(makingInto(made));
        for (int i = 0; i < 3; i++) {
            lock.waitForLockRunAndRelease(Duration.ofSeconds(1), () -> null);
        }
        assertThat(made).hasSize(1);
        assertThat(made.get(0).askedTheDatabase).isEqualTo(3);
    }

    /** Makes managers as Flowable's runnable would, keeping each for the test to look at. */
    private static Supplier<LockManager> makingInto(List<Believing> made) {
        return () -> {
            Believing b = new Believing();
            made.add(b);
            return b;
        };
    }
}
