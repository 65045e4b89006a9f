package io.drover.flowable.engine;

import org.flowable.common.engine.api.lock.LockManager;
import org.flowable.common.engine.impl.interceptor.CommandExecutor;
import org.flowable.job.api.JobInfo;
import org.flowable.job.service.impl.asyncexecutor.AcquireAsyncJobsDueRunnable;
import org.flowable.job.service.impl.asyncexecutor.AcquireTimerJobsRunnable;
import org.flowable.job.service.impl.asyncexecutor.AsyncJobExecutorConfiguration;
import org.flowable.job.service.impl.asyncexecutor.DefaultAsyncJobExecutor;
import org.jboss.logging.Logger;

import java.util.List;

/**
 * Flowable's async executor, with each job's run kept in {@link HeldJobs} while the pool holds it,
 * a way to hand back the runs a stopping node will not start, and acquisition loops whose global
 * lock survives a failed release ({@link ReleaseForgetsLock}).
 */
final class HeldJobsExecutor extends DefaultAsyncJobExecutor {
    private static final Logger LOG = Logger.getLogger(HeldJobsExecutor.class);
    private final HeldJobs held;

    HeldJobsExecutor(AsyncJobExecutorConfiguration configuration, HeldJobs held) {
        super(configuration);
        this.held = held;
    }

    /**
     * Flowable's acquisition loops, each with a global lock a failed release makes it forget
     * ({@link ReleaseForgetsLock}); made here before Flowable would make its own (it keeps the
     * ones it finds), with the arguments it would give them.
     */
    @Override
    protected void initializeRunnables() {
        if (configuration.isTimerRunnableNeeded() && timerJobRunnable == null) {
            timerJobRunnable = new AcquireTimerJobsRunnable(this, jobServiceConfiguration.getJobManager(), timerLifecycleListener,
                    new AcquireTimerRunnableConfiguration(), configuration.getMoveTimerExecutorPoolSize()) {
                @Override
                protected LockManager createLockManager(CommandExecutor commandExecutor) {
                    return new ReleaseForgetsLock(() -> super.createLockManager(commandExecutor));
                }
            };
        }
        if (asyncJobsDueRunnable == null) {
            String name = configuration.getAcquireRunnableThreadName() != null ? configuration.getAcquireRunnableThreadName()
                    : "flowable-" + getJobServiceConfiguration().getEngineName() + "-acquire-async-jobs";
            asyncJobsDueRunnable = new AcquireAsyncJobsDueRunnable(name, this,
                    jobEntityManager != null ? jobEntityManager : jobServiceConfiguration.getJobEntityManager(),
                    asyncJobsDueLifecycleListener, new AcquireAsyncJobsDueRunnableConfiguration()) {
                @Override
                protected LockManager createLockManager(CommandExecutor commandExecutor) {
                    return new ReleaseForgetsLock(() -> super.createLockManager(commandExecutor));
                }
            };
        }
        super.initializeRunnables();
    }

    @Override
    protected Runnable createRunnableForJob(JobInfo job) {
        return held.hold(job, super.createRunnableForJob(job));
    }

    @Override
    protected boolean executeAsyncJob(JobInfo job, Runnable runnable) {
        HeldJobs.Held run = runnable instanceof HeldJobs.Held h ? h : null;
        if (run != null) {
            run.taken(); // before the pool may start it: its end gives the id back
        }
        boolean taken = false;
        try {
            taken = super.executeAsyncJob(job, runnable);
            return taken;
        } finally {
            if (!taken && run != null) {
                // The queue was full: Flowable handed it back, or failed to (its unacquire threw,
                // the database away). Either way this node does not hold it: its lock must lapse.
                run.given();
            }
        }
    }

    /**
     * Hands back, as Flowable hands back a job its full queue refused, the runs a stopping node
     * took from its queue: another node runs them at once rather than after lockExpiry, and none
     * starts here after the node began to stop.
     *
     * @return how many could not be handed back (their locks lapse after lockExpiry)
     */
    int handBack(List<Runnable> queued) {
        int failed = 0;
        for (Runnable r : queued) {
            if (!(r instanceof HeldJobs.Held run)) {
                continue;
            }
            try {
                unacquireJobAfterRejection(run.job());
            } catch (RuntimeException e) {
                failed++;
                LOG.debugf("Handing back job %s failed: %s", run.job().getId(), e.toString());
            } finally {
                run.given();
            }
        }
        return failed;
    }
}
