package io.drover.flowable.bench;

import org.flowable.common.engine.api.delegate.event.FlowableEngineEventType;
import org.flowable.common.engine.api.delegate.event.FlowableEntityEvent;
import org.flowable.common.engine.api.delegate.event.FlowableEvent;
import org.flowable.common.engine.api.delegate.event.FlowableEventListener;
import org.flowable.job.service.impl.persistence.entity.JobEntity;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;

/**
 * Makes the seeding engine write its jobs locked by {@link #OWNER}, so that no node acquires one
 * before the whole batch is written; {@link FlowableSeeder} then unlocks them all in one
 * transaction, and the drain starts with every job visible at once, as Drover's benchmark seeds
 * with one COPY. The lock is set on the entity as it is created, before Flowable flushes it: the
 * INSERT writes the locked row, so there is no moment at which a node could take it. The lock
 * lasts a day, far beyond any seeding, so Flowable's expired-job reset leaves it alone.
 * Async jobs only: the seeded timers are parked by their due date instead ({@link BenchKind}),
 * which is what a due timer is (the event is not fired for a timer job before it is written:
 * timers locked this way ran during the seeding).
 */
final class SeedLock implements FlowableEventListener {
    static final String OWNER = "drover-bench-seed";
    private static final Duration HELD = Duration.ofDays(1);

    @Override
    public void onEvent(FlowableEvent event) {
        if (event.getType() == FlowableEngineEventType.ENTITY_CREATED && event instanceof FlowableEntityEvent e
                && e.getEntity() instanceof JobEntity job) {
            job.setLockOwner(OWNER);
            job.setLockExpirationTime(Date.from(Instant.now().plus(HELD)));
        }
    }

    @Override
    public boolean isFailOnException() {
        return true; // an unlocked seed job would start the drain early: fail the seeding instead
    }

    @Override
    public boolean isFireOnTransactionLifecycleEvent() {
        return false;
    }

    @Override
    public String getOnTransaction() {
        return null;
    }
}
