package io.drover.executor.handler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * POSTs the job's payload to a URL; a 2xx answer is success, anything else (or a timeout) a
 * failure that is retried. {@code timeout} bounds the whole exchange, body included (the JDK
 * client's request timeout stops at the headers, so a server that trickles its body would hold
 * the worker), and at most {@link #MAX_BODY_BYTES} of the answer are read. The URL is the configured one ({@code drover.http.url}), or, when
 * the payload is a JSON object with a {@code "url"} field, that URL, and then the object's
 * {@code "body"} field is what is posted.
 */
public final class HttpHandler implements JobHandler {
    public static final String TYPE = "http";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The answer is only quoted in error messages: the rest is not read. */
    static final int MAX_BODY_BYTES = 64 * 1024;

    private final Optional<URI> defaultUrl;
    private final Duration timeout;
    private final HttpClient client;

    public HttpHandler(Optional<URI> defaultUrl, Duration timeout) {
        this.defaultUrl = defaultUrl;
        this.timeout = timeout;
        this.client = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
    }

    @Override
    public String type() {
        return TYPE;
    }

    /** Where to send and what. */
    record Request(URI url, String body) {
    }

    @Override
    public void execute(JobContext job) throws Exception {
        Request request = request(job.payload());
        CompletableFuture<HttpResponse<String>> exchange = client.sendAsync(HttpRequest.newBuilder(request.url())
                        .timeout(timeout)
                        .header("Content-Type", "application/json")
                        .header("X-Drover-Job-Id", Long.toString(job.id()))
                        .header("X-Drover-Attempt", Integer.toString(job.attempt()))
                        .POST(HttpRequest.BodyPublishers.ofString(request.body()))
                        .build(),
                info -> new BoundedBody(MAX_BODY_BYTES));
        HttpResponse<String> response;
        try {
            response = exchange.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            throw new HttpTimeoutException("POST " + request.url() + " got no complete answer within " + timeout);
        } catch (InterruptedException e) {
            exchange.cancel(true); // jobTimeout or shutdown: abort the exchange, free the connection
            throw e;
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
        if (response.statusCode() / 100 != 2) {
            String body = response.body() == null ? "" : response.body();
            throw new IllegalStateException("POST " + request.url() + " answered " + response.statusCode()
                    + (body.isEmpty() ? "" : ": " + SleepHandler.abbreviate(body)));
        }
    }

    /** Collects at most {@code limit} bytes of a body, then stops reading (the rest is dropped). */
    static final class BoundedBody implements HttpResponse.BodySubscriber<String> {
        private final CompletableFuture<String> result = new CompletableFuture<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final int limit;
        private Flow.Subscription subscription;

        BoundedBody(int limit) {
            this.limit = limit;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(1);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer b : items) {
                int take = Math.min(b.remaining(), limit - bytes.size());
                byte[] chunk = new byte[take];
                b.get(chunk);
                bytes.writeBytes(chunk);
            }
            if (bytes.size() >= limit) {
                subscription.cancel();
                onComplete();
            } else {
                subscription.request(1);
            }
        }

        @Override
        public void onError(Throwable t) {
            result.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            result.complete(bytes.toString(StandardCharsets.UTF_8));
        }

        @Override
        public CompletionStage<String> getBody() {
            return result;
        }
    }

    Request request(String payload) throws InvalidPayloadException {
        String body = payload == null ? "" : payload;
        if (body.trim().startsWith("{")) {
            JsonNode node;
            try {
                node = JSON.readTree(body);
            } catch (Exception e) {
                throw new InvalidPayloadException("http payload looks like JSON but does not parse: " + e.getMessage(), e);
            }
            if (node.hasNonNull("url")) {
                URI url = parse(node.get("url").asText());
                JsonNode inner = node.get("body");
                String innerBody = inner == null ? "" : inner.isTextual() ? inner.asText() : inner.toString();
                return new Request(url, innerBody);
            }
        }
        URI url = defaultUrl.orElseThrow(() -> new InvalidPayloadException(
                "http job has no URL: set drover.http.url or give the payload a \"url\" field"));
        return new Request(url, body);
    }

    private static URI parse(String url) throws InvalidPayloadException {
        try {
            URI uri = URI.create(url);
            if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
                throw new InvalidPayloadException("http job url must be http or https, got " + SleepHandler.abbreviate(url));
            }
            return uri;
        } catch (IllegalArgumentException e) {
            throw new InvalidPayloadException("http job url is not a valid URI: " + SleepHandler.abbreviate(url), e);
        }
    }
}
