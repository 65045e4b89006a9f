package io.drover.flowable.engine;

import org.flowable.job.api.JobInfo;
import org.flowable.job.service.impl.persistence.entity.JobInfoEntity;

import java.time.Duration;
import java.util.Date;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The jobs this node has taken to run: accepted by its pool, queued or running, until their run
 * ends. Lock renewal extends these locks and no others ({@link LockRenewal}): a row this node
 * locked but holds no more (a run whose failure could not be written while the database was
 * away, a job Flowable failed to hand back after a full queue) must lapse, so that Flowable's
 * expired-job sweep hands it to a node. Renewing every row of the node's name kept such a job
 * locked, and unrun, for as long as the node lived.
 */
final class HeldJobs {
    private final Set<String> ids = ConcurrentHashMap.newKeySet();
    private final Duration lockExpiry;

    HeldJobs(Duration lockExpiry) {
        this.lockExpiry = lockExpiry;
    }

    /** The ids held now, for one renewal round. */
    String[] ids() {
        return ids.toArray(String[]::new);
    }

    Held hold(JobInfo job, Runnable run) {
        return new Held(job, run);
    }

    /** One job's run, holding its id from the pool's acceptance to the run's end. */
    final class Held implements Runnable {
        private final JobInfo job;
        private final Runnable run;

        private Held(JobInfo job, Runnable run) {
            this.job = job;
            this.run = run;
        }

        JobInfo job() {
            return job;
        }

        void taken() {
            ids.add(job.getId());
        }

        void given() {
            ids.remove(job.getId());
        }

        @Override
        public void run() {
            try {
                // The process instance lock of an exclusive job is set from this value when the
                // run starts: as acquired, it is already past for a job that waited in the queue
                // for longer than lockExpiry, and another node could run a sibling beside it.
                // The row's own lock is at least this late (renewed while queued).
                if (job instanceof JobInfoEntity entity && entity.getLockExpirationTime() != null) {
                    entity.setLockExpirationTime(new Date(System.currentTimeMillis() + lockExpiry.toMillis()));
                }
                run.run();
            } finally {
                given();
            }
        }
    }
}
