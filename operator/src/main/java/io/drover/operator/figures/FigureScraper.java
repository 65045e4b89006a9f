package io.drover.operator.figures;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Reads each running executor pod's figures (GET http://podIP:8080/q/drover/node) in parallel,
 * as CloudNativePG reads its instances: the operator never queries the jobs database itself. A
 * pod that does not answer within the timeout is left out of this reading.
 */
public final class FigureScraper {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final int MAX_BODY = 64 * 1024;
    private final HttpClient http;
    private final Duration timeout;
    private final int port;

    public FigureScraper(Duration timeout, int port) {
        this.timeout = timeout;
        this.port = port;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
    }

    /** Readings by pod name, of the pods that have an IP and answered. */
    public Map<String, NodeReading> read(List<Pod> pods) {
        Map<String, CompletableFuture<NodeReading>> pending = new LinkedHashMap<>();
        for (Pod pod : pods) {
            String ip = pod.getStatus() == null ? null : pod.getStatus().getPodIP();
            if (ip == null || ip.isEmpty() || !"Running".equals(pod.getStatus().getPhase())) {
                continue;
            }
            String host = ip.contains(":") ? "[" + ip + "]" : ip;
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + "/q/drover/node"))
                    .timeout(timeout).GET().build();
            pending.put(pod.getMetadata().getName(), http.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream())
                    .thenApply(r -> {
                        try (var body = r.body()) {
                            if (r.statusCode() != 200) {
                                throw new IllegalStateException("HTTP " + r.statusCode());
                            }
                            // A node's figures are a few hundred bytes: never hold more than this of an answer.
                            byte[] bytes = body.readNBytes(MAX_BODY + 1);
                            if (bytes.length > MAX_BODY) {
                                throw new IllegalStateException("answer larger than " + MAX_BODY + " bytes");
                            }
                            return JSON.readValue(bytes, NodeReading.class);
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }));
        }
        Map<String, NodeReading> readings = new LinkedHashMap<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        pending.forEach((name, future) -> {
            try {
                readings.put(name, future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                future.cancel(true);
            } catch (Exception e) {
                future.cancel(true); // no answer, or not the figures: this pod is left out
            }
        });
        return readings;
    }
}
