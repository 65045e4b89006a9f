package io.drover.executor.service;

import io.agroal.api.AgroalDataSource;
import io.drover.contract.DatabaseDiagnosis;
import io.drover.executor.engine.ExecutorEngine;
import jakarta.enterprise.context.ApplicationScoped;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * Readiness: the database answers (a connection of the node's pool is valid: Agroal's own check,
 * as Quarkus's datasource check runs it, with the cause in the diagnosis's words instead of the
 * driver's text), start-up is done (schema migrated: while it waits for the database it says what
 * for) and the node is acquiring (its acquisition has not been failing for longer than
 * {@link #FAILING_FOR}). A database outage makes a node unready, never "dead": restarting it
 * would not bring the database back.
 *
 * <p>Liveness: the engine can still do its work: none of its loops stopped making progress, its
 * workers are not all stuck in handlers. A node that fails it is restarted, instead of holding
 * its jobs while it looks healthy.
 */
@ApplicationScoped
public class EngineHealth {
    static final Duration FAILING_FOR = Duration.ofSeconds(30);

    private final ExecutorNode service;
    private final AgroalDataSource dataSource;

    EngineHealth(ExecutorNode service, AgroalDataSource dataSource) {
        this.service = service;
        this.dataSource = dataSource;
    }

    @Readiness
    HealthCheck database() {
        return () -> {
            HealthCheckResponseBuilder r = HealthCheckResponse.named("drover-database");
            try {
                return dataSource.isHealthy(false) ? r.up().build()
                        : r.down().withData("problem", DatabaseDiagnosis.POOL_CHECK_FAILED.toString()).build();
            } catch (SQLException e) {
                return r.down().withData("problem", DatabaseDiagnosis.of(e).toString()).build();
            }
        };
    }

    @Readiness
    HealthCheck acquiring() {
        return () -> {
            HealthCheckResponseBuilder r = HealthCheckResponse.named("drover-acquisition");
            if (!service.started()) {
                return r.down().withData("starting", service.startupStatus()).build();
            }
            return service.engine().map(engine -> describe(r, engine).status(engine.acquiring(FAILING_FOR)).build())
                    .orElseGet(() -> r.up().withData("enabled", false).build());
        };
    }

    /**
     * Asynchronous, so it runs on the event loop, not on the worker pool it shares with the API:
     * writers sending request bodies slowly hold a worker each (a blocking endpoint reads its
     * body from the worker), and with the pool taken a blocking liveness check timed out and the
     * pod was restarted, its running jobs cut (SlowBodiesTest). It reads only the engine's state.
     */
    @Liveness
    AsyncHealthCheck running() {
        return () -> Uni.createFrom().item(this::engineState);
    }

    private HealthCheckResponse engineState() {
        HealthCheckResponseBuilder r = HealthCheckResponse.named("drover-engine");
        return service.engine().map(engine -> {
            List<String> stuck = engine.stuck();
            r.status(stuck.isEmpty()).withData("state", engine.state().name());
            if (!stuck.isEmpty()) {
                r.withData("stuck", String.join("; ", stuck));
            }
            return r.build();
        }).orElseGet(() -> {
            if (service.started()) {
                return r.up().withData("state", "disabled").build();
            }
            return service.startupStuck().map(problem -> r.down().withData("state", "starting").withData("stuck", problem).build())
                    .orElseGet(() -> r.up().withData("state", "starting").build());
        });
    }

    private static HealthCheckResponseBuilder describe(HealthCheckResponseBuilder r, ExecutorEngine engine) {
        r.withData("node", engine.owner())
                .withData("lockMode", engine.settings().lockMode().name())
                .withData("queued", engine.queued())
                .withData("busyThreads", engine.busyThreads());
        // Why it cannot take jobs, in a status's words (never the driver's text).
        engine.problem().ifPresent(p -> r.withData("problem", p.toString()));
        return r;
    }
}
