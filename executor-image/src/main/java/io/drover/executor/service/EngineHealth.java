package io.drover.executor.service;

import io.drover.executor.engine.ExecutorEngine;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import java.time.Duration;

/**
 * Readiness: the node is acquiring (its acquisition has not been failing for longer than
 * {@link #FAILING_FOR}); the database connection itself is checked by the datasource's own
 * readiness check. Liveness: the engine has not stopped. A database outage makes a node
 * unready, never "dead": restarting it would not bring the database back.
 */
@ApplicationScoped
public class EngineHealth {
    static final Duration FAILING_FOR = Duration.ofSeconds(30);

    private final ExecutorService service;

    EngineHealth(ExecutorService service) {
        this.service = service;
    }

    @Readiness
    HealthCheck acquiring() {
        return () -> {
            HealthCheckResponseBuilder r = HealthCheckResponse.named("drover-acquisition");
            return service.engine().map(engine -> describe(r, engine).status(engine.acquiring(FAILING_FOR)).build())
                    .orElseGet(() -> r.up().withData("enabled", false).build());
        };
    }

    @Liveness
    HealthCheck running() {
        return () -> {
            HealthCheckResponseBuilder r = HealthCheckResponse.named("drover-engine");
            return service.engine().map(engine -> r.status(engine.state() != ExecutorEngine.State.STOPPED)
                            .withData("state", engine.state().name()).build())
                    .orElseGet(() -> r.up().withData("enabled", false).build());
        };
    }

    private static HealthCheckResponseBuilder describe(HealthCheckResponseBuilder r, ExecutorEngine engine) {
        return r.withData("node", engine.owner())
                .withData("lockMode", engine.settings().lockMode().name())
                .withData("queued", engine.queued())
                .withData("busyThreads", engine.busyThreads());
    }
}
