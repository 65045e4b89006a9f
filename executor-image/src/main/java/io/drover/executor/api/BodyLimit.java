package io.drover.executor.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.drover.executor.service.DroverConfig;
import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.List;
import java.util.Optional;

/**
 * A request to the API whose body is larger than the HTTP server takes
 * ({@code quarkus.http.limits.max-body-size}) is answered in the API's words: 413 with the
 * field {@code body}, its size and the limit. The server's own check answered an empty 413 and
 * closed the connection, so a client that sent a batch within {@code drover.api.maxBatch} but
 * over the size (10,000 jobs of a kilobyte) learned nothing. Judged by Content-Length before
 * the body is read, in a route ahead of the server's check (which is at order -2); a body sent
 * without a length (chunked) still meets the server's own answer when it passes the limit.
 *
 * <p>Only for callers that carry the write token (the only ones whose large bodies the API
 * takes): the answer is written while the body is still coming, and the connection reads the
 * rest and drops it, so a client that writes its whole body before reading (most do) gets the
 * answer instead of a broken pipe. Anyone else meets the server's own answer, which closes the
 * connection at once: a stranger cannot make the node read large bodies. A client that asked
 * {@code Expect: 100-continue} sends no body: the answer closes the connection. So does one
 * for a body of more than {@link #DRAINED_AT_MOST} times the limit, not read to its end.
 */
@ApplicationScoped
public class BodyLimit {
    static final int DRAINED_AT_MOST = 8;
    private final long maxBytes;
    private final ObjectMapper json;
    private final Optional<byte[]> writeToken;

    BodyLimit(@ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize max, ObjectMapper json,
              DroverConfig config) {
        this.maxBytes = max.asLongValue();
        this.json = json;
        this.writeToken = ApiAuthFilter.bytes(config.api().token());
    }

    void install(@Observes Router router) {
        router.route("/api/*").order(-3).handler(this::check);
    }

    private void check(RoutingContext ctx) {
        long length = contentLength(ctx.request().getHeader("Content-Length"));
        if (length <= maxBytes || !ApiAuthFilter.carries(ctx.request().getHeader("Authorization"), writeToken)) {
            ctx.next();
            return;
        }
        String message = String.format("must be at most %,d bytes, got %,d; send the jobs in smaller batches",
                maxBytes, length);
        String answer;
        try {
            answer = json.writeValueAsString(new ApiError("request too large: body: " + message,
                    List.of(new FieldError("body", message))));
        } catch (JsonProcessingException e) {
            ctx.fail(413, e);
            return;
        }
        var response = ctx.response().setStatusCode(413).putHeader("Content-Type", "application/json");
        boolean noBodyComing = "100-continue".equalsIgnoreCase(ctx.request().getHeader("Expect"));
        if (noBodyComing || length / DRAINED_AT_MOST > maxBytes) {
            response.putHeader("Connection", "close").end(answer).onComplete(done -> ctx.request().connection().close());
        } else {
            response.end(answer);
        }
    }

    /** The declared length, or -1 when there is none or it is not a number (the server judges those). */
    private static long contentLength(String header) {
        if (header == null) {
            return -1;
        }
        try {
            return Long.parseLong(header.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
