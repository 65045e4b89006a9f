package io.drover.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;

/** A producer calling the executor's batch API ({@code POST /api/v1/jobs/batch}), one request at a time. */
final class HttpProducer implements EnqueueBench.Producer {
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final HttpRequest request;
    private final int batch;

    HttpProducer(URI batchUrl, String token, int batch, Instant due) {
        this.batch = batch;
        this.request = HttpRequest.newBuilder(batchUrl).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body(batch, due))).build();
    }

    /** The request body: {@code batch} noop jobs due at {@code due}. */
    static String body(int batch, Instant due) {
        String job = "{\"type\":\"noop\",\"dueAt\":\"" + due + "\"}";
        return "{\"jobs\":[" + String.join(",", Collections.nCopies(batch, job)) + "]}";
    }

    @Override
    public int send() throws Exception {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 201) {
            throw new IllegalStateException("enqueue answered " + response.statusCode() + ": " + response.body());
        }
        return batch;
    }

    @Override
    public void close() {
        http.close();
    }
}
