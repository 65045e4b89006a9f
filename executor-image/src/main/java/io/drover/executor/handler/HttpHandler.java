package io.drover.executor.handler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * POSTs the job's payload to a URL; a 2xx answer is success, anything else (or a timeout) a
 * failure that is retried. The URL is the configured one ({@code drover.http.url}), or, when
 * the payload is a JSON object with a {@code "url"} field, that URL, and then the object's
 * {@code "body"} field is what is posted.
 */
public final class HttpHandler implements JobHandler {
    public static final String TYPE = "http";
    private static final ObjectMapper JSON = new ObjectMapper();

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
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(request.url())
                        .timeout(timeout)
                        .header("Content-Type", "application/json")
                        .header("X-Drover-Job-Id", Long.toString(job.id()))
                        .header("X-Drover-Attempt", Integer.toString(job.attempt()))
                        .POST(HttpRequest.BodyPublishers.ofString(request.body()))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            String body = response.body() == null ? "" : response.body();
            throw new IllegalStateException("POST " + request.url() + " answered " + response.statusCode()
                    + (body.isEmpty() ? "" : ": " + SleepHandler.abbreviate(body)));
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
