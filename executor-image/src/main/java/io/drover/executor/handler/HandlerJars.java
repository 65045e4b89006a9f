package io.drover.executor.handler;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Stream;

/**
 * Loads user handlers from the jars in a directory (the image's /app/handlers): each jar lists
 * its handlers in META-INF/services/io.drover.executor.handler.JobHandler. This is how a
 * derived image adds handlers without rebuilding the service: Quarkus's production class
 * loader only knows the jars indexed at build time.
 */
public final class HandlerJars {
    private HandlerJars() {
    }

    /** @return the handlers found; none if the directory does not exist */
    public static List<JobHandler> load(Path dir, ClassLoader parent) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<URL> jars = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path jar : files.filter(p -> p.toString().endsWith(".jar")).sorted().toList()) {
                jars.add(jar.toUri().toURL());
            }
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list handler jars in " + dir, e);
        }
        if (jars.isEmpty()) {
            return List.of();
        }
        // Never closed: the handlers' classes are used for the life of the process.
        URLClassLoader loader = new URLClassLoader("drover-handlers", jars.toArray(URL[]::new), parent);
        List<JobHandler> handlers = new ArrayList<>();
        ServiceLoader.load(JobHandler.class, loader).stream()
                .filter(provider -> provider.type().getClassLoader() == loader)
                .forEach(provider -> handlers.add(provider.get()));
        return handlers;
    }
}
