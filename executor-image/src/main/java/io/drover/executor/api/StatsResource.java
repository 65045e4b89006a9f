package io.drover.executor.api;

import io.drover.executor.store.JobQueries;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.sql.SQLException;

@Path("/api/v1/stats")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "stats")
public class StatsResource {
    private final JobQueries queries;

    StatsResource(JobQueries queries) {
        this.queries = queries;
    }

    @GET
    @Operation(summary = "Due backlog, future timers, running (locked by a node: queued there, running or"
            + " completing) and dead letters; each count stops at 'cap'")
    public JobQueries.Counts stats() throws SQLException {
        return queries.counts();
    }
}
