package io.drover.executor.figures;

import io.drover.executor.config.ExecutorSettings;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * GET /q/drover/node: this node's figures (NodeFigures) as JSON, for the operator's fleet view.
 * Like /q/metrics it carries counts and timings only, never job content, so it is outside the
 * token-guarded /api; the cluster's NetworkPolicy admits the operator to it.
 */
@Path("/q/drover/node")
public class NodeFiguresResource {
    private final ExecutorSettings settings;
    private final MeterRegistry registry;

    NodeFiguresResource(ExecutorSettings settings, MeterRegistry registry) {
        this.settings = settings;
        this.registry = registry;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public NodeFigures figures() {
        return NodeFigures.read(settings.nodeName(), settings.lockMode().name(), registry);
    }
}
