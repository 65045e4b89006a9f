package io.drover.testing.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An OCI archive as `make image` writes it (tools/build-image.sh), unpacked into a temporary
 * directory: the reference it is tagged with, its config, and its layers applied in order into
 * one root filesystem, from which {@link #start} runs a command the way a container runtime
 * would, without one: /proc mounted, chrooted, as the image's user, with only the given
 * environment. Needs root (mount, chroot), as `make test` has.
 */
public final class OciImage implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Path layout;
    private final JsonNode index;
    private final JsonNode manifest;
    private Path rootfs;
    private boolean procMounted;

    private OciImage(Path layout) throws IOException {
        this.layout = layout;
        this.index = JSON.readTree(layout.resolve("index.json").toFile());
        this.manifest = blob(index.at("/manifests/0/digest").asText());
    }

    /** Unpacks the archive named by a system property (the build passes its path). */
    public static OciImage fromProperty(String property) throws IOException, InterruptedException {
        String archive = System.getProperty(property);
        if (archive == null || archive.isBlank() || !Files.isRegularFile(Path.of(archive))) {
            throw new IllegalStateException("system property " + property + " must name the image archive (run via make test); got "
                    + archive);
        }
        Path layout = Files.createTempDirectory("drover-image");
        run("tar", "-xf", archive, "-C", layout.toString());
        return new OciImage(layout);
    }

    /** The reference containerd imports the image as (org.opencontainers.image.ref.name). */
    public String referenceName() {
        return index.at("/manifests/0/annotations/org.opencontainers.image.ref.name").asText();
    }

    /** The image config's "config" object: Entrypoint, User, ExposedPorts, Env. */
    public JsonNode config() throws IOException {
        return blob(manifest.at("/config/digest").asText()).get("config");
    }

    public List<String> entrypoint() throws IOException {
        List<String> entrypoint = new ArrayList<>();
        config().get("Entrypoint").forEach(n -> entrypoint.add(n.asText()));
        return entrypoint;
    }

    /** The layers unpacked in order into one root filesystem (once). */
    public synchronized Path rootfs() throws IOException, InterruptedException {
        if (rootfs == null) {
            Path dir = layout.resolve("rootfs");
            Files.createDirectories(dir);
            for (JsonNode layer : manifest.get("layers")) {
                run("tar", "-xzf", layout.resolve("blobs/sha256/" + digest(layer.get("digest").asText())).toString(),
                        "-C", dir.toString());
            }
            rootfs = dir;
        }
        return rootfs;
    }

    /**
     * Starts a command inside the root filesystem as the image's user, with this environment
     * only, its output (both streams) to {@code log}. The launcher needs /proc (its RPATH is
     * $ORIGIN-relative), so it is bind-mounted until {@link #close}.
     */
    public synchronized Process start(Map<String, String> environment, Path log, String... command)
            throws IOException, InterruptedException {
        Path root = rootfs();
        if (!procMounted) {
            run("mount", "--bind", "/proc", root.resolve("proc").toString());
            procMounted = true;
        }
        List<String> argv = new ArrayList<>(List.of("/usr/sbin/chroot", "--userspec=" + config().get("User").asText(),
                root.toString()));
        argv.addAll(List.of(command));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().clear();
        pb.environment().putAll(environment);
        return pb.start();
    }

    @Override
    public synchronized void close() throws IOException, InterruptedException {
        if (procMounted) {
            run("umount", "-l", rootfs.resolve("proc").toString());
            procMounted = false;
        }
        run("rm", "-rf", layout.toString());
    }

    private JsonNode blob(String digest) throws IOException {
        return JSON.readTree(layout.resolve("blobs/sha256/" + digest(digest)).toFile());
    }

    private static String digest(String digest) {
        return digest.substring("sha256:".length());
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).inheritIO().start();
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " failed");
        }
    }
}
