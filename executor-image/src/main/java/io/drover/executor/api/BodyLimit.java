package io.drover.executor.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.drover.executor.service.DroverConfig;
import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the node takes of request bodies, judged from the headers before a body is read, in a
 * route ahead of the server's own size check (which is at order -2).
 *
 * <p>One body: larger than the server takes ({@code quarkus.http.limits.max-body-size}) is
 * answered in the API's words: 413 with the field {@code body}, its size and the limit. The
 * server's own check answered an empty 413 and closed the connection, so a client that sent a
 * batch within {@code drover.api.maxBatch} but over the size (10,000 jobs of a kilobyte) learned
 * nothing. A body sent without a length (chunked) still meets the server's own answer when it
 * passes the limit.
 *
 * <p>All bodies at once: within {@link BodyBudget} ({@code drover.api.maxBodyBytesInFlight}),
 * else 503 with Retry-After. A body sent without a length counts as the largest the server takes.
 * A body's room comes back when its call ends, or its connection closes: one whose sender stalls
 * mid-body holds it until the server's idle timeout ({@code quarkus.http.idle-timeout}, 2 minutes).
 *
 * <p>A writer's body that comes over HTTP/1.x with its length and is not a form is read here, on the event
 * loop, to its end before the call goes on to its endpoint (the REST layer then reads it from
 * memory). Our endpoints block, and a blocking endpoint read its body from a worker thread a read
 * at a time (the REST layer buffers bodies only for endpoints that do not block): writers sending
 * slowly held as many worker threads as they were, and every other call (a producer's enqueue,
 * the stats, readiness) waited for one. Such a body is held whole, then copied for the parser,
 * so it counts twice against the budget (at most the whole budget: one body of the largest size
 * still goes in alone). An HTTP/2 body, and a chunked one, keep the streaming read (the server's own 413, with the
 * connection closed, past the limit), and so does a form (answered 415 in the API's words: the
 * body handler would decode it as a form first, and answer its errors in the server's).
 *
 * <p>Refusals are written while the body is still coming. For callers that carry the write token
 * (the only ones whose bodies the API takes) the connection reads the rest and drops it, so a
 * client that writes its whole body before reading (most do) gets the answer instead of a broken
 * pipe. Anyone else's connection is closed at once: a stranger cannot make the node read large
 * bodies (over the limit, that is the server's own answer). A client that asked
 * {@code Expect: 100-continue} sends no body: the answer closes the connection. So does one for a
 * body of more than {@link #DRAINED_AT_MOST} times the limit, not read to its end.
 */
@ApplicationScoped
public class BodyLimit {
    static final int DRAINED_AT_MOST = 8;
    /** What a 503 for a full budget asks a client to wait: other calls' bodies are read in about that. */
    static final String RETRY_AFTER_SECONDS = "1";
    private final long maxBytes;
    private final BodyBudget budget;
    private final ObjectMapper json;
    private final Optional<byte[]> writeToken;
    private final BodyHandler bodies;

    BodyLimit(@ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize max, ObjectMapper json,
              DroverConfig config) {
        this.maxBytes = max.asLongValue();
        this.budget = new BodyBudget(config.api().maxBodyBytesInFlight().map(MemorySize::asLongValue)
                .orElseGet(BodyBudget::defaultCapacity), maxBytes);
        this.json = json;
        this.writeToken = ApiAuthFilter.bytes(config.api().token());
        // No file uploads (a multipart body would be written to disk), at most the server's limit.
        this.bodies = BodyHandler.create(false).setBodyLimit(maxBytes).setPreallocateBodyBuffer(true);
    }

    void install(@Observes Router router) {
        // Every path: the API is also reached through paths a route on /api/* does not match
        // (/api;x=1/v1/jobs: RESTEasy drops matrix parameters before it matches, Vert.x does not).
        router.route().order(-3).handler(this::check);
    }

    private void check(RoutingContext ctx) {
        long length = contentLength(ctx.request().getHeader("Content-Length"));
        boolean writer = ApiAuthFilter.carries(ctx.request().getHeader("Authorization"), writeToken);
        if (length > maxBytes) {
            if (!writer) {
                ctx.next();
                return;
            }
            String message = String.format("must be at most %,d bytes, got %,d; send the jobs in smaller batches",
                    maxBytes, length);
            refuse(ctx, 413, new ApiError("request too large: body: " + message, List.of(new FieldError("body", message))),
                    length, true);
            return;
        }
        // Without a length (chunked over HTTP/1.1; any body over HTTP/2 may come so, with no
        // Transfer-Encoding), a body counts as the largest the server takes.
        boolean mayCarryBody = switch (ctx.request().method().name()) {
            case "POST", "PUT", "PATCH" -> true;
            default -> ctx.request().getHeader("Transfer-Encoding") != null;
        };
        long bytes = length >= 0 ? length : mayCarryBody ? maxBytes : 0;
        if (bytes == 0) {
            ctx.next();
            return;
        }
        // HTTP/1.x only: the REST layer pauses the request as it begins, which an HTTP/2 stream
        // whose body was read to its end refuses ("Request has already been read"): every
        // HTTP/2 enqueue answered 500 (ExecutorJarIT, whose JDK client speaks h2c).
        boolean readHere = writer && length > 0 && ctx.request().version() != io.vertx.core.http.HttpVersion.HTTP_2
                && !form(ctx.request().getHeader("Content-Type"));
        long cost = readHere ? Math.min(budget.capacity(), 2 * bytes) : bytes;
        if (!budget.tryTake(cost)) {
            refuse(ctx, 503, ApiError.of(String.format("the node is reading as many request bodies as it may hold at once"
                    + " (%,d bytes, drover.api.maxBodyBytesInFlight); retry shortly", budget.capacity())), length, writer);
            return;
        }
        AtomicBoolean given = new AtomicBoolean();
        // Called when the answer is written, and when the connection closes before that.
        ctx.addEndHandler(done -> {
            if (given.compareAndSet(false, true)) {
                budget.give(cost);
            }
        });
        if (readHere) {
            bodies.handle(ctx); // reads the body, then goes on to the next route
        } else {
            ctx.next(); // a stranger's is answered 401 or 403 without its body read
        }
    }

    private static boolean form(String contentType) {
        String type = contentType == null ? "" : contentType.trim().toLowerCase(java.util.Locale.ROOT);
        return type.startsWith("multipart/") || type.startsWith("application/x-www-form-urlencoded");
    }

    private void refuse(RoutingContext ctx, int status, ApiError error, long length, boolean writer) {
        String answer;
        try {
            answer = json.writeValueAsString(error);
        } catch (JsonProcessingException e) {
            ctx.fail(status, e);
            return;
        }
        var response = ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json");
        if (status == 503) {
            response.putHeader("Retry-After", RETRY_AFTER_SECONDS);
        }
        boolean noBodyComing = "100-continue".equalsIgnoreCase(ctx.request().getHeader("Expect"));
        if (!writer || noBodyComing || length / DRAINED_AT_MOST > maxBytes) {
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
