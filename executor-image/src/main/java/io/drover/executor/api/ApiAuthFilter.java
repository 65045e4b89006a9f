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
 * Guards /api: with {@code drover.api.token} set, every call needs
 * {@code Authorization: Bearer <token>}; without it, reads are open and writes refused, so an
 * executor deployed without a token can never be fed jobs by whoever reaches its port.
 */
public class ApiAuthFilter {
    private final Optional<byte[]> token;

    ApiAuthFilter(DroverConfig config) {
        this.token = config.api().token().filter(t -> !t.isBlank()).map(t -> t.getBytes(StandardCharsets.UTF_8));
    }

    @ServerRequestFilter
    public Optional<Response> authorize(ContainerRequestContext request) {
        if (!request.getUriInfo().getPath().startsWith("/api/")) {
            return Optional.empty();
        }
        if (token.isEmpty()) {
            boolean read = HttpMethod.GET.equals(request.getMethod()) || HttpMethod.HEAD.equals(request.getMethod());
            return read ? Optional.empty() : Optional.of(error(Response.Status.FORBIDDEN,
                    "API writes are disabled: set drover.api.token (env DROVER_API_TOKEN, from a Secret) to enable them"));
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.startsWith("Bearer ")) {
            return Optional.of(unauthorized("missing bearer token: send 'Authorization: Bearer <drover.api.token>'"));
        }
        byte[] given = header.substring("Bearer ".length()).trim().getBytes(StandardCharsets.UTF_8);
        // Constant-time comparison: the answer time must not reveal how much of a guess was right.
        if (!MessageDigest.isEqual(given, token.get())) {
            return Optional.of(unauthorized("invalid bearer token"));
        }
        return Optional.empty();
    }

    private static Response unauthorized(String message) {
        return Response.fromResponse(error(Response.Status.UNAUTHORIZED, message))
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"drover\"").build();
    }

    private static Response error(Response.Status status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON).entity(ApiError.of(message)).build();
    }
}
