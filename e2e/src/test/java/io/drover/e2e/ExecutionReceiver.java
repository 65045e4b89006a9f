package io.drover.e2e;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts job executions: the e2e jobs are of the executor's built-in "http" type, and each
 * POSTs its id here. A job that ran is known by id, so "no job lost" is counted, not assumed.
 */
final class ExecutionReceiver implements AutoCloseable {
    private final HttpServer server;
    private final ConcurrentHashMap<Long, AtomicInteger> executions = new ConcurrentHashMap<>();
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
        server.start();
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

    long duplicates() {
        return executions.values().stream().mapToInt(AtomicInteger::get).filter(n -> n > 1).count();
    }

    void jobMillis(long millis) {
        jobMillis = millis;
    }

    void reset() {
        executions.clear();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
