package io.drover.executor.api;

import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.service.DroverConfig;
import io.drover.executor.service.ExecutorNode;
import io.drover.executor.store.JobEnqueuer;
import io.drover.executor.store.JobEnqueuer.NewJob;
import io.drover.executor.store.JobQueries;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.net.URI;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

@Path("/api/v1/jobs")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "jobs")
public class JobResource {
    private final JobEnqueuer enqueuer;
    private final JobQueries queries;
    private final ExecutorNode executor;
    private final JobRequestValidator validator;
    private final int maxBatch;

    JobResource(JobEnqueuer enqueuer, JobQueries queries, ExecutorNode executor, ExecutorSettings settings,
                DroverConfig config) {
        this.enqueuer = enqueuer;
        this.queries = queries;
        this.executor = executor;
        this.validator = new JobRequestValidator(settings.maxAttempts());
        this.maxBatch = config.api().maxBatch();
    }

    @POST
    @Operation(summary = "Enqueue one job or timer")
    public Response enqueue(JobRequest request) throws SQLException {
        NewJob job = validator.one(request);
        long id = enqueuer.enqueue(List.of(job))[0];
        executor.jobsEnqueued();
        return Response.created(URI.create("/api/v1/jobs/" + id)).entity(Map.of("id", id)).build();
    }

    @POST
    @Path("/batch")
    @Operation(summary = "Enqueue many jobs in one transaction (all or none)")
    public Response enqueueBatch(JobBatchRequest request) throws SQLException {
        List<NewJob> jobs = validator.batch(request, maxBatch);
        long[] ids = enqueuer.enqueue(jobs);
        executor.jobsEnqueued();
        return Response.status(Response.Status.CREATED)
                .entity(Map.of("count", ids.length, "ids", Arrays.stream(ids).boxed().toList())).build();
    }

    @GET
    @Path("/{id}")
    @Operation(summary = "A job, a timer or a dead letter by id")
    public JobQueries.JobView get(@Parameter(schema = @Schema(type = SchemaType.INTEGER, format = "int64")) @PathParam("id") String idText) throws SQLException {
        long id = RequestNumbers.id(idText, "job or dead letter");
        return queries.find(id).orElseThrow(() -> new NotFoundException("no job or dead letter with id " + id
                + " (a job that completed is deleted)"));
    }
}
