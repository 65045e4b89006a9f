package io.drover.flowable.engine;

import org.flowable.common.engine.api.lock.LockManager;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Flowable's global acquire lock, forgotten by this node when releasing it fails. Flowable's own
 * manager marks the lock released only once the release has been written: when the write fails
 * (a database blip), it goes on believing it holds the lock and acquires on every later cycle
 * without asking the database, while the other nodes take the lock over after
 * globalLockMaxHold; from then on two nodes select the same unlocked jobs and, since Flowable
 * locks them in bulk with no revision check, both run them. Here a failed release drops the
 * manager for a fresh one, which holds nothing: the node asks the database again, and gets the
 * lock only when its own unreleased hold has aged past globalLockMaxHold, as the others do.
 */
final class ReleaseForgetsLock implements LockManager {
    private final Supplier<LockManager> fresh;
    private volatile LockManager current;

    ReleaseForgetsLock(Supplier<LockManager> fresh) {
        this.fresh = fresh;
        this.current = fresh.get();
    }

    @Override
    public void waitForLock(Duration waitTime) {
        current.waitForLock(waitTime);
    }

    @Override
    public boolean acquireLock() {
        return current.acquireLock();
    }

    @Override
    public boolean acquireLock(Duration lockForceAcquireAfter) {
        return current.acquireLock(lockForceAcquireAfter);
    }

    @Override
    public void releaseLock() {
        forgettingOnFailure(current::releaseLock);
    }

    @Override
    public void releaseAndDeleteLock() {
        forgettingOnFailure(current::releaseAndDeleteLock);
    }

    /** Runs a release; if it fails, the next acquisition goes to a fresh manager, which holds nothing. */
    private void forgettingOnFailure(Runnable release) {
        try {
            release.run();
        } catch (RuntimeException e) {
            current = fresh.get();
            throw e;
        }
    }

    /** As Flowable's: waits for the lock, runs, releases; but through this manager's release. */
    @Override
    public <T> T waitForLockRunAndRelease(Duration waitTime, Supplier<T> supplier) {
        waitForLock(waitTime);
        try {
            return supplier.get();
        } finally {
            releaseLock();
        }
    }
}
