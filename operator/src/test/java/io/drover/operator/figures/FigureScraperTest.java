package io.drover.operator.figures;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pods that answer badly are left out of a reading, and cost the operator nothing that outlives
 * it: real HTTP servers on loopback addresses, one per pod, all on the same port as pods are.
 *
 * <p>The stalled body is the case to watch: the request's timeout ends at the headers, and the
 * body is read by a blocking stream on a thread of the client. What frees that thread and the
 * connection is the scraper's cancel of the reading's future: the JDK client's futures pass a
 * cancel of a dependent stage on to the exchange, which it aborts (the blocked read then fails).
 */
class FigureScraperTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private final List<HttpServer> servers = new ArrayList<>();
    private final ExecutorService handlers = Executors.newCachedThreadPool();
    private final CountDownLatch stalledConnectionClosed = new CountDownLatch(1);

    @AfterEach
    void stop() {
        servers.forEach(s -> s.stop(0));
        handlers.shutdownNow();
    }

    @Test
    void aPodThatStallsOrAnswersTooMuchIsLeftOutAndItsConnectionClosed() throws Exception {
        int port = serve("127.0.0.1", 0, exchange -> {
            byte[] figures = "{\"node\":\"a\",\"threads\":8,\"busyThreads\":3}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, figures.length);
            exchange.getResponseBody().write(figures);
            exchange.close();
        });
        // Headers at once, then a body that never ends: a space every 100 ms, until the client hangs up.
        serve("127.0.0.2", port, exchange -> {
            exchange.sendResponseHeaders(200, 0);
            OutputStream body = exchange.getResponseBody();
            try {
                body.write('{');
                while (true) {
                    body.flush();
                    Thread.sleep(100);
                    body.write(' ');
                }
            } catch (IOException closedByTheClient) {
                stalledConnectionClosed.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        serve("127.0.0.3", port, exchange -> {
            byte[] huge = " ".repeat(FigureScraper.MAX_BODY + 1).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, huge.length);
            try {
                exchange.getResponseBody().write(huge);
            } catch (IOException ignored) {
                // the client stops reading past its bound
            }
            exchange.close();
        });

        FigureScraper scraper = new FigureScraper(TIMEOUT, port);
        long start = System.nanoTime();
        Map<String, NodeReading> readings = scraper.read(List.of(pod("a", "127.0.0.1"), pod("stalls", "127.0.0.2"),
                pod("too-large", "127.0.0.3"), pod("pending", null)));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(readings.keySet()).containsExactly("a");
        assertThat(readings.get("a").busyThreads()).isEqualTo(3);
        assertThat(took).as("one deadline for the reading, body included").isLessThan(TIMEOUT.multipliedBy(3));
        assertThat(stalledConnectionClosed.await(10, TimeUnit.SECONDS))
                .as("the stalled exchange is cancelled, not left holding a connection and a thread").isTrue();
    }

    private int serve(String address, int port, com.sun.net.httpserver.HttpHandler handler) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(address, port), 0);
        server.createContext("/q/drover/node", handler);
        server.setExecutor(handlers);
        server.start();
        servers.add(server);
        return server.getAddress().getPort();
    }

    private static Pod pod(String name, String ip) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().withPodIP(ip).withPhase("Running").endStatus().build();
    }
}
