package io.drover.flowable.service;

import io.drover.flowable.engine.FlowableNode;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/**
 * The same probes as the Drover executor's, so the operator runs both engines' pods alike.
 * Readiness: the engine is built on its schema and, unless disabled, its async executor runs
 * (a starting node says what it waits for; a database outage makes it unready, not dead).
 * Liveness: a node that cannot work says so, to be restarted: it failed to start, or is still
 * starting after startupTimeout, or its async executor stopped, or an acquisition loop stopped
 * turning ({@link FlowableNode#cannotWork}).
 */
@ApplicationScoped
public class NodeHealth {
    private final FlowableNode node;

    NodeHealth(FlowableNode node) {
        this.node = node;
    }

    @Readiness
    HealthCheck ready() {
        return () -> {
            HealthCheckResponseBuilder r = HealthCheckResponse.named("flowable-engine");
            return switch (node.state()) {
                case STARTING -> r.down().withData("starting", String.valueOf(node.waitingFor())).build();
                case RUNNING -> r.status(node.executorActive()).withData("asyncExecutor", node.executorActive()).build();
                case STOPPING, FAILED -> r.down().withData("state", node.state().name()).build();
            };
        };
    }

    @Liveness
    HealthCheck live() {
        return () -> {
            String cannot = node.cannotWork();
            HealthCheckResponseBuilder r = HealthCheckResponse.named("flowable-async-executor")
                    .status(cannot == null).withData("state", node.state().name());
            return cannot == null ? r.build() : r.withData("cannotWork", cannot).build();
        };
    }
}
