package io.drover.executor.api;

import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.service.DroverConfig;
import io.drover.executor.service.ExecutorNode;
import io.drover.executor.store.JobEnqueuer;
import io.drover.executor.store.JobEnqueuer.NewJob;
import io.drover.executor.store.JobQueries;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
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
    public Response enqueue(JobRequest request, @Parameter(description = IdempotencyKeys.DESCRIPTION) @HeaderParam(IdempotencyKeys.HEADER) String key)
            throws SQLException {
        NewJob job = validator.one(request);
        JobEnqueuer.Enqueued done = enqueue(List.of(job), key, () -> IdempotencyKeys.request("one", List.of(request)));
        long id = done.ids()[0];
        return replayed(Response.created(URI.create("/api/v1/jobs/" + id)).entity(Map.of("id", id)), done).build();
    }

    @POST
    @Path("/batch")
    @Operation(summary = "Enqueue many jobs in one transaction (all or none)")
    public Response enqueueBatch(JobBatchRequest request, @Parameter(description = IdempotencyKeys.DESCRIPTION) @HeaderParam(IdempotencyKeys.HEADER) String key)
            throws SQLException {
        List<NewJob> jobs = validator.batch(request, maxBatch);
        JobEnqueuer.Enqueued done = enqueue(jobs, key, () -> IdempotencyKeys.request("batch", request.jobs()));
        long[] ids = done.ids();
        return replayed(Response.status(Response.Status.CREATED)
                .entity(Map.of("count", ids.length, "ids", Arrays.stream(ids).boxed().toList())), done).build();
    }

    /** Enqueues the jobs, once per idempotency key if the call has one (IdempotencyKeys). */
    private JobEnqueuer.Enqueued enqueue(List<NewJob> jobs, String key, java.util.function.Supplier<byte[]> request)
            throws SQLException {
        JobEnqueuer.Enqueued done;
        if (key == null) {
            done = new JobEnqueuer.Enqueued(enqueuer.enqueue(jobs), false);
        } else {
            try {
                done = enqueuer.enqueue(jobs, IdempotencyKeys.valid(key), request.get());
            } catch (JobEnqueuer.KeyReused e) {
                throw IdempotencyKeys.reused();
            } catch (JobEnqueuer.KeyInUse e) {
                throw IdempotencyKeys.inUse();
            }
        }
        if (!done.replayed()) {
            executor.jobsEnqueued();
        }
        return done;
    }

    private static Response.ResponseBuilder replayed(Response.ResponseBuilder answer, JobEnqueuer.Enqueued done) {
        return done.replayed() ? answer.header(IdempotencyKeys.REPLAYED, "true") : answer;
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
