package io.drover.flowable.engine;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.flowable.common.engine.api.delegate.event.FlowableEngineEventType;
import org.flowable.common.engine.api.delegate.event.FlowableEntityEvent;
import org.flowable.common.engine.api.delegate.event.FlowableEvent;
import org.flowable.common.engine.api.delegate.event.FlowableEventListener;
import org.flowable.common.engine.impl.cfg.TransactionState;
import org.flowable.job.api.JobInfo;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Counts the jobs this node ran, by job handler type and outcome, as the Drover executor's
 * {@code drover_jobs_executed_total} does (outcome {@code succeeded} or {@code failed}: Flowable
 * decides after the run whether a failure is retried or dead-lettered), so the dashboard's
 * throughput panels read both engines alike.
 *
 * <p>Counted once the event's transaction commits: Flowable dispatches a job's success inside the
 * job's transaction, before the flush; when the flush or commit then fails, the same run is
 * dispatched again as a failure, and counting both would show one run as two.
 *
 * <p>Types the engine has no handler for are counted as {@value #UNHANDLED_TYPE}, as the Drover
 * executor counts them: the type is read from the job's row, which any producer with database
 * access writes, and a meter per type they invent would grow without end on every node.
 */
final class JobOutcomes implements FlowableEventListener {
    static final String UNHANDLED_TYPE = "(no handler)";
    private final MeterRegistry registry;
    private final Predicate<String> handled;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    /** @param handled whether the engine has a handler for a job type */
    JobOutcomes(MeterRegistry registry, Predicate<String> handled) {
        this.registry = registry;
        this.handled = handled;
    }

    @Override
    public void onEvent(FlowableEvent event) {
        String outcome;
        if (event.getType() == FlowableEngineEventType.JOB_EXECUTION_SUCCESS) {
            outcome = "succeeded";
        } else if (event.getType() == FlowableEngineEventType.JOB_EXECUTION_FAILURE) {
            outcome = "failed";
        } else {
            return;
        }
        String type = "unknown";
        if (event instanceof FlowableEntityEvent entity && entity.getEntity() instanceof JobInfo job && job.getJobHandlerType() != null) {
            type = handled.test(job.getJobHandlerType()) ? job.getJobHandlerType() : UNHANDLED_TYPE;
        }
        String t = type;
        counters.computeIfAbsent(t + "/" + outcome, k -> Counter.builder("drover.jobs.executed").tag("type", t).tag("outcome", outcome)
                .description("Jobs run by this node, by type and outcome").register(registry)).increment();
    }

    /**
     * Registered for these two types only: a listener fired on commit is queued for every event
     * it is given, and run after the commit in a command of its own.
     */
    @Override
    public java.util.Collection<? extends org.flowable.common.engine.api.delegate.event.FlowableEventType> getTypes() {
        return java.util.List.of(FlowableEngineEventType.JOB_EXECUTION_SUCCESS, FlowableEngineEventType.JOB_EXECUTION_FAILURE);
    }

    @Override
    public boolean isFailOnException() {
        return false; // a metric must never fail a job
    }

    @Override
    public boolean isFireOnTransactionLifecycleEvent() {
        return true;
    }

    @Override
    public String getOnTransaction() {
        return TransactionState.COMMITTED.name();
    }
}
