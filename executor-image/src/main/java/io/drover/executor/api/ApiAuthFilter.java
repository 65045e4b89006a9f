package io.drover.executor.api;

import io.drover.executor.service.DroverConfig;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * Guards /api, closed by default: every call needs {@code Authorization: Bearer <token>}.
 * {@code drover.api.token} may read and write (enqueue, retry and delete dead letters);
 * {@code drover.api.readToken} may only read (jobs, dead letters, stats). With neither set the
 * API refuses every call: job payloads and dead letters' stack traces are not for whoever
 * reaches the port. (The operator generates both tokens in a Secret per cluster.) Health and
 * metrics (/q) are not under /api.
 */
public class ApiAuthFilter {
    private final Optional<byte[]> token;
    private final Optional<byte[]> readToken;

    ApiAuthFilter(DroverConfig config) {
        this.token = bytes(config.api().token());
        this.readToken = bytes(config.api().readToken());
    }

    /**
     * A configured token without the white space around it, as a presented one is read: a Secret
     * made with {@code kubectl create secret --from-file} ends in a newline, which no client
     * sends, and every call was refused with nothing to tell why.
     */
    static Optional<byte[]> bytes(Optional<String> value) {
        return value.map(String::strip).filter(t -> !t.isEmpty()).map(t -> t.getBytes(StandardCharsets.UTF_8));
    }

    @ServerRequestFilter
    public Optional<Response> authorize(ContainerRequestContext request) {
        if (!underApi(request)) {
            return Optional.empty();
        }
        boolean read = HttpMethod.GET.equals(request.getMethod()) || HttpMethod.HEAD.equals(request.getMethod());
        if (token.isEmpty() && (readToken.isEmpty() || !read)) {
            return Optional.of(error(Response.Status.FORBIDDEN, read
                    ? "the API is closed: set drover.api.readToken or drover.api.token (env DROVER_API_READTOKEN,"
                            + " DROVER_API_TOKEN, from a Secret) to open it"
                    : "API writes are disabled: set drover.api.token (env DROVER_API_TOKEN, from a Secret) to enable them"));
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (!isBearer(header)) {
            return Optional.of(unauthorized("missing bearer token: send 'Authorization: Bearer <token>'"));
        }
        byte[] given = bearer(header);
        // Constant-time comparisons: the answer time must not reveal how much of a guess was right.
        if (matches(given, token)) {
            return Optional.empty();
        }
        if (matches(given, readToken)) {
            return read ? Optional.empty()
                    : Optional.of(error(Response.Status.FORBIDDEN, "the read token may only read: writes need drover.api.token"));
        }
        return Optional.of(unauthorized("invalid bearer token"));
    }

    /**
     * Whether the request is for /api, judged by the first path segment without its matrix
     * parameters: resource matching ignores them, so "/api;x=1/v1/jobs" reaches the jobs
     * resource and must be guarded like "/api/v1/jobs".
     */
    private static boolean underApi(ContainerRequestContext request) {
        var segments = request.getUriInfo().getPathSegments();
        for (var segment : segments) {
            if (!segment.getPath().isEmpty()) {
                return segment.getPath().equals("api");
            }
        }
        return false;
    }

    /** Whether an Authorization header carries the given token (constant-time). */
    static boolean carries(String header, Optional<byte[]> expected) {
        return isBearer(header) && matches(bearer(header), expected);
    }

    /** The scheme's name is case-insensitive (RFC 9110 11.1): some OAuth clients send "bearer". */
    private static boolean isBearer(String header) {
        return header != null && header.regionMatches(true, 0, "Bearer ", 0, "Bearer ".length());
    }

    private static byte[] bearer(String header) {
        return header.substring("Bearer ".length()).strip().getBytes(StandardCharsets.UTF_8);
    }

    private static boolean matches(byte[] given, Optional<byte[]> expected) {
        return expected.isPresent() && MessageDigest.isEqual(given, expected.get());
    }

    private static Response unauthorized(String message) {
        return Response.fromResponse(error(Response.Status.UNAUTHORIZED, message))
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"drover\"").build();
    }

    private static Response error(Response.Status status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON).entity(ApiError.of(message)).build();
    }
}
