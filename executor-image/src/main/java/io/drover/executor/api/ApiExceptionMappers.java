package io.drover.executor.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.sql.SQLException;
import java.util.List;
import java.util.stream.Collectors;

/** Every API error is JSON: {"message": ..., "errors": [{"field": ..., "message": ...}]}. */
public class ApiExceptionMappers {
    private static final Logger LOG = Logger.getLogger(ApiExceptionMappers.class);

    @ServerExceptionMapper
    public Response invalid(InvalidRequestException e) {
        return json(Response.Status.BAD_REQUEST, new ApiError("invalid request: " + e.getMessage(), e.errors()));
    }

    /** Malformed JSON or a value of the wrong type: name the field Jackson was reading. */
    @ServerExceptionMapper
    public Response badJson(JsonProcessingException e) {
        String field = e instanceof JsonMappingException m && !m.getPath().isEmpty()
                ? m.getPath().stream().map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                        .collect(Collectors.joining(".")).replace(".[", "[")
                : "body";
        String reason = e.getOriginalMessage();
        return json(Response.Status.BAD_REQUEST,
                new ApiError("invalid JSON: " + field + ": " + reason, List.of(new FieldError(field, reason))));
    }

    /** Unknown field, wrong type: more specific than JsonProcessingException, and Quarkus maps it by default. */
    @ServerExceptionMapper
    public Response mismatchedJson(MismatchedInputException e) {
        return badJson(e);
    }

    @ServerExceptionMapper
    public Response notFound(NotFoundException e) {
        return json(Response.Status.NOT_FOUND, ApiError.of(e.getMessage()));
    }

    /** Anything else the framework raises (e.g. a body that is not JSON at all), as JSON too. */
    @ServerExceptionMapper
    public Response web(WebApplicationException e) {
        if (e.getCause() instanceof JsonProcessingException json) {
            return badJson(json);
        }
        return Response.status(e.getResponse().getStatus()).type(MediaType.APPLICATION_JSON)
                .entity(ApiError.of(e.getMessage())).build();
    }

    @ServerExceptionMapper
    public Response database(SQLException e) {
        LOG.warnf("API call failed on the database: %s", e.getMessage());
        return json(Response.Status.SERVICE_UNAVAILABLE, ApiError.of("database unavailable: " + e.getMessage()));
    }

    private static Response json(Response.Status status, ApiError error) {
        return Response.status(status).type(MediaType.APPLICATION_JSON).entity(error).build();
    }
}
