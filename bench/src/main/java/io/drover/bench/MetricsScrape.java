package io.drover.bench;

import io.drover.executor.bench.Prometheus;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The nodes' /q/metrics for the idle-latency runs, which scrape twice per rate. A quick run hung
 * for 4 minutes inside {@link Prometheus#scrape} while both nodes answered curl at once (cause not
 * found; that client offers the HTTP/2 upgrade, and a request timeout does not bound reading the
 * body): this one speaks HTTP/1.1, bounds the whole exchange and tries again.
 */
final class MetricsScrape {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final int ATTEMPTS = 3;

    private MetricsScrape() {
    }

    static Prometheus of(List<URI> urls) throws Exception {
        StringBuilder all = new StringBuilder();
        for (URI url : urls) {
            all.append(fetch(url)).append('\n');
        }
        return Prometheus.parse(all.toString());
    }

    private static String fetch(URI url) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10)).build();
        for (int attempt = 1; ; attempt++) {
            var pending = HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofString());
            try {
                HttpResponse<String> response = pending.get(15, TimeUnit.SECONDS);
                if (response.statusCode() == 200) {
                    return response.body();
                }
                if (attempt == ATTEMPTS) {
                    throw new IllegalStateException(url + " answered " + response.statusCode());
                }
            } catch (TimeoutException e) {
                pending.cancel(true);
                if (attempt == ATTEMPTS) {
                    throw new IllegalStateException(url + " did not answer in 15 s, " + ATTEMPTS + " times", e);
                }
            }
        }
    }
}
