package io.drover.executor.api;

import io.drover.executor.service.ExecutorNode;
import io.drover.executor.store.JobQueries;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;

@Path("/api/v1/dead-letters")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "dead letters")
public class DeadLetterResource {
    static final int MAX_PAGE = 1000;

    private final JobQueries queries;
    private final ExecutorNode executor;

    DeadLetterResource(JobQueries queries, ExecutorNode executor) {
        this.queries = queries;
        this.executor = executor;
    }

    @GET
    @Operation(summary = "Dead letters by id; page with afterId = the last id of the previous page")
    public List<JobQueries.DeadLetterView> list(@Parameter(schema = @Schema(type = SchemaType.INTEGER, format = "int64")) @QueryParam("afterId") @DefaultValue("0") String afterId,
                                                @Parameter(schema = @Schema(type = SchemaType.INTEGER, format = "int32")) @QueryParam("limit") @DefaultValue("100") String limit) throws SQLException {
        long after = RequestNumbers.query("afterId", afterId, Long.MIN_VALUE, Long.MAX_VALUE);
        int page = (int) RequestNumbers.query("limit", limit, 1, MAX_PAGE);
        return queries.deadLetters(after, page);
    }

    @POST
    @Path("/{id}/retry")
    @Operation(summary = "Move a dead letter back to the jobs, due now, with fresh attempts")
    public Map<String, Object> retry(@Parameter(schema = @Schema(type = SchemaType.INTEGER, format = "int64")) @PathParam("id") String idText) throws SQLException {
        long id = RequestNumbers.id(idText, "dead letter");
        if (!moveBack(id)) {
            notADeadLetter(id);
        }
        executor.jobsEnqueued();
        return Map.of("id", id, "status", "due");
    }

    /**
     * Moves the dead letter back to the jobs; false if there is none of that id. A dead letter
     * written by hand can hold what the jobs table refuses (max_attempts 0, an interval not
     * above zero): that is the row's fault, not the request's, so the answer names the id and
     * the rule, not only the database's SQLState.
     */
    private boolean moveBack(long id) throws SQLException {
        try {
            return queries.retryDeadLetter(id);
        } catch (SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            if (!state.startsWith("22") && !state.startsWith("23")) {
                throw e;
            }
            String rule = e instanceof org.postgresql.util.PSQLException p && p.getServerErrorMessage() != null
                    && p.getServerErrorMessage().getConstraint() != null ? p.getServerErrorMessage().getConstraint() : null;
            throw new ConflictException("id", "dead letter " + id + " cannot become a job: "
                    + (rule != null ? "one of its values breaks the jobs table's rule " + rule
                    : "one of its values is out of the jobs table's range") + " (SQLState " + state
                    + "); correct the row, or delete it");
        }
    }

    /**
     * Says what the id is instead: a caller that repeats a retry whose answer it lost (a timeout,
     * a dropped connection) learns that the job is back in the jobs, not that it does not exist.
     */
    private void notADeadLetter(long id) throws SQLException {
        JobQueries.JobView job = queries.find(id).orElseThrow(() -> new NotFoundException("no dead letter or job with id "
                + id + " (a job that completed is deleted)"));
        if ("dead_letter".equals(job.status())) { // dead-lettered again between the two statements
            if (moveBack(id)) {
                return;
            }
            throw new ConflictException("id", "was changed by another call at the same time; read it with GET /api/v1/jobs/" + id);
        }
        throw new ConflictException("id", "is not a dead letter: job " + id + " is in the jobs (" + job.status()
                + ", attempt " + job.attempts() + " of " + job.maxAttempts() + "); a dead letter once retried is a job"
                + " under the same id until it completes or is dead-lettered again");
    }

    @DELETE
    @Path("/{id}")
    @Operation(summary = "Delete a dead letter for good")
    public Response delete(@Parameter(schema = @Schema(type = SchemaType.INTEGER, format = "int64")) @PathParam("id") String idText) throws SQLException {
        long id = RequestNumbers.id(idText, "dead letter");
        if (!queries.deleteDeadLetter(id)) {
            throw new NotFoundException("no dead letter with id " + id);
        }
        return Response.noContent().build();
    }
}
