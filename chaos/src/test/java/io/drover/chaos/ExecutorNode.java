package io.drover.chaos;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One packaged executor service ({@code java -jar quarkus-run.jar}) as its own process, kept
 * running the way the kubelet keeps a pod's container running (the operator's probes): restarted
 * when it exits; liveness probed once its startup probe passed, as Kubernetes does, so a start
 * slowed by a loaded machine is waited for (up to 3 minutes, the pods' 90 x 2 s) rather than
 * killed; then killed and restarted after three failed liveness probes in a row. Nothing else
 * helps it: a node that wedges and does not say so stays wedged, and the campaign sees it.
 */
final class ExecutorNode implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Duration PROBE_EVERY = Duration.ofSeconds(3);
    private static final int PROBE_FAILURES = 3;
    /** The executor pods' startup probe allows 90 x 2 s; the same time here. */
    private static final int STARTUP_PROBE_FAILURES = (int) (Duration.ofSeconds(180).toSeconds() / PROBE_EVERY.toSeconds());

    private final String label;
    private final List<String> command;
    private final Map<String, String> env;
    private final int httpPort;
    private final Path log;
    private final AtomicInteger restarts = new AtomicInteger();
    private final List<String> events = new ArrayList<>();
    private volatile Process process;
    private volatile boolean running = true;
    private volatile boolean probing = true;
    private final Thread supervisor;

    ExecutorNode(String label, Path executorJar, Map<String, String> env, int httpPort, Path log) {
        this.label = label;
        this.env = env;
        this.httpPort = httpPort;
        this.log = log;
        this.command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", executorJar.toString());
        launch();
        this.supervisor = Thread.ofPlatform().daemon().name("supervise-" + label).start(this::supervise);
    }

    String label() {
        return label;
    }

    int restarts() {
        return restarts.get();
    }

    private synchronized void launch() {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            pb.environment().putAll(env);
            pb.environment().put("QUARKUS_HTTP_PORT", Integer.toString(httpPort));
            process = pb.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + label, e);
        }
    }

    private void supervise() {
        int failures = 0;
        boolean started = false;
        while (running) {
            try {
                Thread.sleep(PROBE_EVERY.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            Process p = process;
            if (!running) {
                return;
            }
            if (!p.isAlive()) {
                record("exited with " + p.exitValue() + "; restarting");
                restarts.incrementAndGet();
                launch();
                failures = 0;
                started = false;
                continue;
            }
            if (!probing) {
                failures = 0;
                continue;
            }
            if (!started) {
                started = get("/q/health/started");
                failures = started ? 0 : failures + 1;
                if (failures < STARTUP_PROBE_FAILURES) {
                    continue;
                }
            } else {
                failures = live() ? 0 : failures + 1;
            }
            if (failures >= (started ? PROBE_FAILURES : STARTUP_PROBE_FAILURES)) {
                record("failed " + failures + (started ? " liveness" : " startup") + " probes; killing and restarting");
                p.destroyForcibly();
                try {
                    p.waitFor();
                } catch (InterruptedException e) {
                    return;
                }
                restarts.incrementAndGet();
                launch();
                failures = 0;
                started = false;
            }
        }
    }

    private synchronized void record(String event) {
        events.add(event);
        System.out.println("[chaos] " + label + ": " + event);
    }

    synchronized List<String> events() {
        return List.copyOf(events);
    }

    private boolean get(String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                            .timeout(Duration.ofSeconds(3)).GET().build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode() == 200;
        } catch (Exception e) {
            return false;
        }
    }

    boolean live() {
        return get("/q/health/live");
    }

    boolean ready() {
        return get("/q/health/ready");
    }

    /** SIGKILL, like an OOM kill or a crash; the supervisor restarts it. */
    void kill9() throws InterruptedException {
        Process p = process;
        p.destroyForcibly();
        p.waitFor();
    }

    /** SIGSTOP: frozen (a long GC pause, a suspended VM); liveness probes pause too, or they would restart it. */
    void freeze() throws Exception {
        probing = false;
        long pid = process.pid();
        Signals.sendOne("STOP", pid);
        Signals.awaitStopped(pid);
    }

    void thaw() throws Exception {
        Signals.sendOne("CONT", process.pid());
        probing = true;
    }

    /** SIGTERM and wait, like a pod being deleted; not restarted. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        supervisor.interrupt();
        Process p = process;
        p.destroy();
        if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor();
        }
    }
}
