package io.drover.chaos;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The external receiver: every start and every finish of every chaos job, by job id, recorded
 * outside the executors and their database, so nothing a fault does to them can hide a lost or
 * a duplicate execution.
 */
final class Receiver implements AutoCloseable {
    /**
     * One report: {@code kind} is start or finish; {@code nanos} when the run reached it, on the
     * machine's monotonic clock. The nodes run on this machine, and {@code System.nanoTime} reads
     * the same clock in every JVM here (Linux's CLOCK_MONOTONIC), so it is the reporting node's
     * own stamp; the moment of arrival only stands in for a report without one. Arrival is not
     * when the run began: a node frozen (SIGSTOP) while its start report was on its way sends it
     * when thawed, 20 s after its run began and after another node took the job over.
     */
    record Event(String kind, long job, String node, int attempt, long nanos) {
    }

    private final HttpServer server;
    private final Queue<Event> events = new ConcurrentLinkedQueue<>();

    Receiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
        for (String kind : List.of("start", "finish")) {
            server.createContext("/" + kind, exchange -> {
                Map<String, String> q = new HashMap<>();
                for (String pair : exchange.getRequestURI().getRawQuery().split("&")) {
                    int eq = pair.indexOf('=');
                    q.put(pair.substring(0, eq), pair.substring(eq + 1));
                }
                long arrived = System.nanoTime();
                events.add(new Event(kind, Long.parseLong(q.get("job")), q.get("node"),
                        Integer.parseInt(q.get("attempt")), q.containsKey("nanos") ? Long.parseLong(q.get("nanos")) : arrived));
                exchange.sendResponseHeaders(204, -1);
                exchange.close();
            });
        }
        server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(16));
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    List<Event> events() {
        return List.copyOf(events);
    }

    void clear() {
        events.clear();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
