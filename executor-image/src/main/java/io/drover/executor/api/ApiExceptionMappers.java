package io.drover.executor.api;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.drover.contract.Causes;
import io.drover.contract.DatabaseDiagnosis;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/** Every API error is JSON: {"message": ..., "errors": [{"field": ..., "message": ...}]}. */
public class ApiExceptionMappers {
    private static final Logger LOG = Logger.getLogger(ApiExceptionMappers.class);
    /** What a 503 asks a client to wait: about a failed-over database's first seconds back. */
    static final String RETRY_AFTER_SECONDS = "5";

    @ServerExceptionMapper
    public Response invalid(InvalidRequestException e) {
        return json(Response.Status.BAD_REQUEST, new ApiError("invalid request: " + e.getMessage(), e.errors()));
    }

    /** An idempotency key reused for another request: 422, as the IETF draft of the header says. */
    @ServerExceptionMapper
    public Response keyReused(IdempotencyKeys.KeyReusedException e) {
        return Response.status(422).type(MediaType.APPLICATION_JSON).entity(e.body()).build();
    }

    /** A retry that overtook the call it repeats, still writing: 409, to be retried. */
    @ServerExceptionMapper
    public Response keyInUse(IdempotencyKeys.KeyInUseException e) {
        return Response.status(Response.Status.CONFLICT).type(MediaType.APPLICATION_JSON)
                .header("Retry-After", "1").entity(e.body()).build();
    }

    @ServerExceptionMapper
    public Response conflict(ConflictException e) {
        return json(Response.Status.CONFLICT, e.body());
    }

    /** Malformed JSON or a value of the wrong type: name the field Jackson was reading. */
    @ServerExceptionMapper
    public Response badJson(JsonProcessingException e) {
        JsonParseException twice = duplicate(e);
        String field = twice != null ? parsedPath(twice)
                : e instanceof JsonMappingException m && !m.getPath().isEmpty()
                ? m.getPath().stream().map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                        .collect(Collectors.joining(".")).replace(".[", "[")
                : "body";
        String reason = reason(e);
        return json(Response.Status.BAD_REQUEST,
                new ApiError("invalid JSON: " + field + ": " + reason, List.of(new FieldError(field, reason))));
    }

    /**
     * What is wrong, in the API's words: Jackson's own messages name Java classes and its
     * parser's internals ("Cannot deserialize value of type `java.lang.Integer`", "[Source:
     * REDACTED ...]"), which are no answer for a client.
     */
    static String reason(JsonProcessingException e) {
        if (e instanceof UnrecognizedPropertyException u) {
            return u.getKnownPropertyIds() == null ? "is not a field here"
                    : "is not a field here; the fields are " + u.getKnownPropertyIds().stream().map(String::valueOf)
                    .sorted().collect(Collectors.joining(", "));
        }
        for (Throwable t : Causes.chain(e)) {
            if (t instanceof StreamConstraintsException) {
                return "is beyond the limits of a request (nesting depth, or the length of a number or a string)";
            }
            if (t instanceof InputCoercionException) {
                return "is a number out of range";
            }
        }
        if (e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Trailing token")) {
            return "has something after its JSON value";
        }
        if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
            return "must be " + kind(m.getTargetType());
        }
        if (duplicate(e) != null) {
            return "is given more than once in one object";
        }
        if (e instanceof JsonParseException) {
            JsonLocation at = e.getLocation();
            return "is not valid JSON" + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")");
        }
        return "is not a value of the expected kind";
    }

    /** The parser's report of a field given twice in one object (PayloadJson's strict duplicate detection), or null. */
    private static JsonParseException duplicate(JsonProcessingException e) {
        for (Throwable t : Causes.chain(e)) {
            if (t instanceof JsonParseException p && p.getOriginalMessage() != null
                    && p.getOriginalMessage().startsWith("Duplicate field ")) {
                return p;
            }
        }
        return null;
    }

    /** Where the parser stopped, as a field path ({@code payload.items[2].x}); "body" if it cannot tell. */
    private static String parsedPath(JsonParseException e) {
        if (!(e.getProcessor() instanceof JsonParser parser)) {
            return "body";
        }
        java.util.Deque<String> parts = new java.util.ArrayDeque<>();
        for (JsonStreamContext at = parser.getParsingContext(); at != null && !at.inRoot(); at = at.getParent()) {
            parts.addFirst(at.inArray() ? "[" + at.getCurrentIndex() + "]" : "." + at.getCurrentName());
        }
        String path = String.join("", parts);
        return path.isEmpty() ? "body" : path.startsWith(".") ? path.substring(1) : path;
    }

    private static String kind(Class<?> type) {
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "a whole number";
        }
        if (type == String.class) {
            return "a string";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "an array";
        }
        return "an object";
    }

    /** Unknown field, wrong type: more specific than JsonProcessingException, and Quarkus maps it by default. */
    @ServerExceptionMapper
    public Response mismatchedJson(MismatchedInputException e) {
        return badJson(e);
    }

    /**
     * A body in an encoding Jackson takes for UTF-32 but cannot decode: an IOException, which no
     * other mapper takes (the framework answered a bare 500 and logged it at DEBUG only).
     */
    @ServerExceptionMapper
    public Response undecodable(java.io.CharConversionException e) {
        String reason = "is not valid JSON in UTF-8";
        return json(Response.Status.BAD_REQUEST, new ApiError("invalid JSON: body: " + reason, List.of(new FieldError("body", reason))));
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

    /**
     * The driver's text stays in the log: it can name users, hosts and schema, and is no answer
     * for a client. A value the database refuses (data exception 22, integrity 23) is the
     * request's fault: 400; anything else: 503, naming the cause in the words of the node's
     * readiness and status (DatabaseReadOnly, DatabasePermissionDenied, ...): a client, or whoever
     * reads its log, can tell an outage that passes from one an operator must mend.
     */
    @ServerExceptionMapper
    public Response database(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.startsWith("22") || state.startsWith("23")) {
            LOG.infof("API request refused by the database (SQLState %s): %s", state, e.getMessage());
            return json(Response.Status.BAD_REQUEST, ApiError.of("invalid request: a value the database cannot store"
                    + " (SQLState " + state + ")"));
        }
        LOG.warnf("API call failed on the database (SQLState %s): %s", state, e.getMessage());
        // Retry-After: a client's HTTP library backs off by it instead of retrying at once.
        return Response.status(Response.Status.SERVICE_UNAVAILABLE).type(MediaType.APPLICATION_JSON)
                .header("Retry-After", RETRY_AFTER_SECONDS)
                .entity(ApiError.of("the database is unavailable (" + DatabaseDiagnosis.of(e).reason() + "); try again later"))
                .build();
    }

    /**
     * Anything unforeseen: a generic 500 whose id finds the stack trace in the log. The
     * exception's text is not for the client (it may hold internals).
     */
    @ServerExceptionMapper
    public Response unexpected(RuntimeException e) {
        String id = java.util.UUID.randomUUID().toString().substring(0, 8);
        LOG.errorf(e, "API call failed unexpectedly (error %s)", id);
        return json(Response.Status.INTERNAL_SERVER_ERROR, ApiError.of("internal error " + id + ": see the executor's log"));
    }

    private static Response json(Response.Status status, ApiError error) {
        return Response.status(status).type(MediaType.APPLICATION_JSON).entity(error).build();
    }
}
