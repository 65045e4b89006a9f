package io.drover.flowable.service;

import io.agroal.api.AgroalDataSource;
import io.drover.contract.DatabaseDiagnosis;
import io.drover.flowable.engine.FlowableNode;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import java.sql.SQLException;

/**
 * The same probes as the Drover executor's, so the operator runs both engines' pods alike.
 * Readiness: the database answers the pool's connection check, and the engine is built on its
 * schema and, unless disabled, its async executor runs (a starting node says what it waits for;
 * a database outage makes it unready, not dead). Whoever reaches the pod reads these answers:
 * they name SQLStates, never the driver's messages (hosts, roles; the log has them).
 * Liveness: a node that cannot work says so, to be restarted: it failed to start, or is still
 * starting after startupTimeout, or its async executor stopped, or an acquisition loop stopped
 * turning while the database answers ({@link FlowableNode#cannotWork}; a database that answers
 * nobody makes the node unready, not dead).
 */
@ApplicationScoped
public class NodeHealth {
    private final FlowableNode node;
    private final AgroalDataSource dataSource;

    NodeHealth(FlowableNode node, AgroalDataSource dataSource) {
        this.node = node;
        this.dataSource = dataSource;
    }

    /** Agroal's check of the pool's connections, as Quarkus's datasource check (turned off) runs it. */
    @Readiness
    HealthCheck database() {
        return () -> {
            HealthCheckResponseBuilder r = HealthCheckResponse.named("flowable-database");
            try {
                if (dataSource.isHealthy(false)) {
                    node.database().answered();
                    return r.up().build();
                }
                return r.down().withData("problem", DatabaseDiagnosis.POOL_CHECK_FAILED.toString()).build();
            } catch (SQLException e) {
                return r.down().withData("problem", DatabaseDiagnosis.of(e).toString()).build();
            }
        };
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
