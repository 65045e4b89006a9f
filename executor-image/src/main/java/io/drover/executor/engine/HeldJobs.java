package io.drover.executor.engine;

import io.drover.executor.store.AcquiredJob;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ids of the jobs this node holds a lock on: from acquisition until their outcome is written
 * (or they are released). The lock keeper renews exactly these, queued ones included, so a
 * prefetched job never expires while it waits in the queue.
 */
final class HeldJobs {
    private final Set<Long> ids = ConcurrentHashMap.newKeySet();

    void addAll(List<AcquiredJob> jobs) {
        for (AcquiredJob job : jobs) {
            ids.add(job.id());
        }
    }

    void removeAll(Collection<Long> done) {
        ids.removeAll(done);
    }

    List<Long> snapshot() {
        return List.copyOf(ids);
    }

    int size() {
        return ids.size();
    }
}
