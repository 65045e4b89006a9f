package io.drover.flowable.engine;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.flowable.common.engine.api.delegate.event.FlowableEngineEventType;
import org.flowable.common.engine.impl.event.FlowableEntityEventImpl;
import org.flowable.job.service.impl.persistence.entity.JobEntityImpl;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The job type label of drover_jobs_executed_total: a job's handler type is read from its row,
 * which any producer with database access writes; types the engine has no handler for are one
 * label, not a meter each (as the Drover executor counts them). A unit test of the listener's
 * logic, with Flowable's own event and job classes; FlowableNodeTest counts real runs.
 */
class JobOutcomesTest {
    @Test
    void typesTheEngineHasNoHandlerForAreCountedAsOne() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        JobOutcomes outcomes = new JobOutcomes(registry, Set.of("async-continuation")::contains);
        outcomes.onEvent(event("async-continuation", FlowableEngineEventType.JOB_EXECUTION_SUCCESS));
        for (int i = 0; i < 50; i++) {
            outcomes.onEvent(event("invented-" + i, FlowableEngineEventType.JOB_EXECUTION_FAILURE));
        }
        assertThat(registry.find("drover.jobs.executed").counters()).hasSize(2);
        assertThat(registry.get("drover.jobs.executed").tag("type", "async-continuation").tag("outcome", "succeeded")
                .counter().count()).isEqualTo(1);
        assertThat(registry.get("drover.jobs.executed").tag("type", JobOutcomes.UNHANDLED_TYPE).tag("outcome", "failed")
                .counter().count()).isEqualTo(50);
    }

    private static FlowableEntityEventImpl event(String type, FlowableEngineEventType kind) {
        JobEntityImpl job = new JobEntityImpl();
        job.setJobHandlerType(type);
        return new FlowableEntityEventImpl(job, kind);
    }
}
