package io.drover.executor.figures;

import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.engine.ExecutorEngine;
import io.drover.executor.service.ExecutorNode;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * GET /q/drover/node: this node's figures (NodeFigures) as JSON, for the operator's fleet view.
 * Like /q/metrics it carries counts and timings only, never job content (and a problem in the
 * node's own words, never a driver's text), so it is outside the token-guarded /api; the
 * cluster's NetworkPolicy admits the operator to it.
 */
@Path("/q/drover/node")
public class NodeFiguresResource {
    private final ExecutorSettings settings;
    private final MeterRegistry registry;
    private final ExecutorNode node;

    NodeFiguresResource(ExecutorSettings settings, MeterRegistry registry, ExecutorNode node) {
        this.settings = settings;
        this.registry = registry;
        this.node = node;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public NodeFigures figures() {
        // A starting node's too: why its start-up keeps failing, while it retries for startupTimeout.
        String problem = node.engine().flatMap(ExecutorEngine::problem).or(node::startupProblem).map(Object::toString)
                .orElse(null);
        return NodeFigures.read(settings.nodeName(), settings.lockMode().name(), registry, problem);
    }
}
