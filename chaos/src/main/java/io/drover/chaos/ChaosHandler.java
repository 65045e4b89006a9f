package io.drover.chaos;

import io.drover.executor.handler.JobContext;
import io.drover.executor.handler.JobHandler;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Job type {@code chaos}, for the fault campaign: it reports every start and every finish to an
 * external receiver (env {@code CHAOS_RECEIVER}, outside the executor and its database), so
 * executions are counted by job id whatever happens to the node or the database. The payload
 * says what the job does between the two:
 * <ul>
 *   <li>a number: sleeps that many milliseconds (an ordinary job);</li>
 *   <li>{@code exit}: ends the JVM with System.exit, as a handler with a fatal bug would;</li>
 *   <li>{@code hang}: blocks for good, ignoring interrupts (a call that never returns);</li>
 *   <li>{@code oom}: allocates memory without bound (the pod's memory limit ends the JVM).</li>
 * </ul>
 */
public final class ChaosHandler implements JobHandler {
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String receiver = System.getenv().getOrDefault("CHAOS_RECEIVER", "http://127.0.0.1:1");
    /** Who ran it: as the campaign names its nodes (two fleets may share node names), else the node or pod name. */
    private final String node = firstSet("CHAOS_NODE", "DROVER_NODENAME", "HOSTNAME");
    /**
     * This JVM, apart from the node: a restarted container or process reports under the same node
     * name, and the receiver must tell a run of the killed JVM from one of its successor.
     */
    private static final String JVM = java.util.UUID.randomUUID().toString().substring(0, 8);

    @Override
    public String type() {
        return "chaos";
    }

    @Override
    public void execute(JobContext job) throws Exception {
        report("start", job);
        String what = job.payload() == null ? "0" : job.payload().trim();
        switch (what) {
            case "exit" -> System.exit(3);
            case "hang" -> hang();
            case "oom" -> allocateForever();
            default -> Thread.sleep(Long.parseLong(what));
        }
        report("finish", job);
    }

    private static String firstSet(String... names) {
        for (String name : names) {
            String v = System.getenv(name);
            if (v != null && !v.isBlank()) {
                return v;
            }
        }
        return "unknown";
    }

    private static void hang() {
        while (true) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException ignored) {
                // ignored on purpose: this handler does not stop when asked
            }
        }
    }

    private static void allocateForever() {
        java.util.List<byte[]> held = new java.util.ArrayList<>();
        while (true) {
            byte[] chunk = new byte[8 << 20];
            java.util.Arrays.fill(chunk, (byte) 1); // touched, so the pages are really used
            held.add(chunk);
        }
    }

    /**
     * {@code nanos} is when this run reached the report, on this machine's monotonic clock: the
     * campaign's receiver, on the same machine, judges a run by it rather than by the report's
     * arrival, which a fault can delay (a node frozen as it sends arrives when it is thawed).
     */
    private void report(String event, JobContext job) throws Exception {
        long nanos = System.nanoTime();
        HttpResponse<Void> r = client.send(HttpRequest.newBuilder(URI.create(receiver + "/" + event + "?job=" + job.id()
                        + "&node=" + node + "&attempt=" + job.attempt() + "&jvm=" + JVM + "&nanos=" + nanos))
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() != 204) {
            throw new IllegalStateException("receiver answered " + r.statusCode());
        }
    }
}
