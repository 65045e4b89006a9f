package io.drover.executor.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Starts {@link NodeMain} in a child JVM and controls it like an orchestrator would. */
public final class NodeProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private final CountDownLatch ready = new CountDownLatch(1);
    private final Thread pump;

    private NodeProcess(String name, Process process) {
        this.name = name;
        this.process = process;
        this.pump = Thread.ofPlatform().daemon().name("output-" + name).start(this::pump);
    }

    public static NodeProcess start(String name, String schema, Map<String, String> settings) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        // As in Quarkus: JUL's own LogManager resets itself in a shutdown hook, which would
        // swallow everything the node logs while it shuts down gracefully.
        cmd.add("-Djava.util.logging.manager=org.jboss.logmanager.LogManager");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(NodeMain.class.getName());
        cmd.add("nodeName=" + name);
        cmd.add("schema=" + schema);
        cmd.add("jdbcUrl=" + TestDatabase.jdbcUrl());
        settings.forEach((k, v) -> cmd.add(k + "=" + v));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        return new NodeProcess(name, p);
    }

    private void pump() {
        try (var in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                output.add(line);
                if (line.startsWith("READY")) {
                    ready.countDown();
                }
                if (Boolean.getBoolean("it.nodeOutput")) {
                    System.out.println("[" + name + "] " + line);
                }
            }
        } catch (IOException ignored) {
            // process ended
        }
    }

    public NodeProcess awaitReady() throws InterruptedException {
        if (!ready.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("node " + name + " did not start; output:\n" + String.join("\n", output));
        }
        return this;
    }

    public String name() {
        return name;
    }

    /** SIGKILL: the node dies without any cleanup, like a crash or an OOM kill. */
    public void kill() throws InterruptedException {
        process.toHandle().destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /**
     * SIGTERM and wait, like a pod being deleted. The JVM exits with 143 (128 + SIGTERM) after
     * its shutdown hook ran; the hook's final "STATS" line proves the graceful stop completed.
     *
     * @return the STATS line
     */
    public String terminate() throws InterruptedException {
        // Not Process.destroy(): after signalling it closes our end of the child's stdout, and
        // everything the node prints while shutting down would be lost.
        process.toHandle().destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("node " + name + " did not stop in 60 s");
        }
        pump.join(10_000); // the pump ends at EOF: every line the node printed has been read
        return output.stream().filter(l -> l.startsWith("STATS")).findFirst().orElseThrow(() ->
                new AssertionError("node " + name + " exited " + process.exitValue()
                        + " without completing its graceful shutdown; output:\n" + String.join("\n", output)));
    }

    /**
     * Waits for the node to end by itself (a handler's System.exit) and returns its exit status.
     *
     * @throws AssertionError if it is still running after {@code max}
     */
    public int awaitExit(java.time.Duration max) throws InterruptedException {
        if (!process.waitFor(max.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("node " + name + " still running after " + max + "; output:\n"
                    + String.join("\n", output));
        }
        pump.join(10_000);
        return process.exitValue();
    }

    public List<String> output() {
        return List.copyOf(output);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
