package io.drover.e2e;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts job executions by id, so "no job lost" is counted, not assumed. Two protocols: the
 * built-in "http" jobs POST their id to {@code /done}; the fault campaign's "chaos" jobs (the
 * e2e image) report every start and every finish to {@code /start} and {@code /finish}, so a
 * run cut short (a start without a finish) and a job run twice are seen too.
 */
final class ExecutionReceiver implements AutoCloseable {
    /**
     * One report of a chaos job; {@code at} is when it arrived, {@code jvm} the reporting JVM's
     * token (a restarted container reports under the same node name; null from a handler that
     * does not send one).
     */
    record Event(String kind, long job, String node, int attempt, Instant at, String jvm) {
    }

    private final HttpServer server;
    private final ConcurrentHashMap<Long, AtomicInteger> executions = new ConcurrentHashMap<>();
    private final Queue<Event> events = new ConcurrentLinkedQueue<>();
    /** How long each job takes: the receiver answers after this delay (slow jobs build a backlog). */
    private volatile long jobMillis;

    ExecutionReceiver(String host) throws IOException {
        server = HttpServer.create(new InetSocketAddress(host, 0), 200);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/done", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                String body = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
                if (jobMillis > 0) {
                    Thread.sleep(jobMillis);
                }
                executions.computeIfAbsent(Long.parseLong(body), id -> new AtomicInteger()).incrementAndGet();
                exchange.sendResponseHeaders(204, -1);
            } catch (NumberFormatException e) {
                exchange.sendResponseHeaders(400, -1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                exchange.sendResponseHeaders(503, -1);
            } finally {
                exchange.close();
            }
        });
        for (String kind : List.of("start", "finish")) {
            server.createContext("/" + kind, exchange -> {
                try {
                    Map<String, String> q = new HashMap<>();
                    for (String pair : exchange.getRequestURI().getRawQuery().split("&")) {
                        int eq = pair.indexOf('=');
                        q.put(pair.substring(0, eq), pair.substring(eq + 1));
                    }
                    events.add(new Event(kind, Long.parseLong(q.get("job")), q.get("node"),
                            Integer.parseInt(q.get("attempt")), Instant.now(), q.get("jvm")));
                    exchange.sendResponseHeaders(204, -1);
                } catch (RuntimeException e) {
                    exchange.sendResponseHeaders(400, -1);
                } finally {
                    exchange.close();
                }
            });
        }
        server.start();
    }

    /** Where chaos jobs report (their CHAOS_RECEIVER). */
    String base() {
        return "http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort();
    }

    List<Event> events() {
        return List.copyOf(events);
    }

    String url() {
        return "http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort() + "/done";
    }

    int distinct() {
        return executions.size();
    }

    boolean executed(long id) {
        return executions.containsKey(id);
    }

    /** The "http" jobs reported done more than once, by id, in order. */
    List<Long> duplicates() {
        return executions.entrySet().stream().filter(e -> e.getValue().get() > 1).map(Map.Entry::getKey).sorted().toList();
    }

    /** How many times each of these jobs was reported done. */
    List<Integer> executionsOf(List<Long> ids) {
        return ids.stream().map(id -> executions.get(id).get()).toList();
    }

    void jobMillis(long millis) {
        jobMillis = millis;
    }

    void reset() {
        executions.clear();
        events.clear();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
