package io.drover.flowable.engine;

import org.flowable.engine.RepositoryService;
import org.flowable.engine.repository.DeploymentBuilder;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The process definitions a node deploys at start-up, and the class loader of their delegates:
 * the image's own models (classpath {@code processes/}: the no-op, sleep and timer models the
 * benchmark runs) and a user's, dropped into {@code flowable.processesDir} (default
 * /app/processes) as *.bpmn20.xml or *.bpmn files beside the jars of their delegates. A user
 * image is this image plus that folder. Deployments filter duplicates, so every node of a fleet
 * deploying the same files at start-up makes one version of each.
 */
final class ProcessFiles {
    private static final Logger LOG = Logger.getLogger(ProcessFiles.class);
    /** The image's own models, on the classpath. */
    static final List<String> BUNDLED = List.of("processes/async-noop.bpmn20.xml", "processes/async-sleep.bpmn20.xml",
            "processes/timer.bpmn20.xml");

    private ProcessFiles() {
    }

    /** The delegates' class loader: the jars of {@code dir}, in front of the application's classes. */
    static ClassLoader classLoader(Path dir, ClassLoader parent) {
        List<URL> jars = new ArrayList<>();
        for (Path jar : files(dir, ".jar")) {
            try {
                jars.add(jar.toUri().toURL());
            } catch (MalformedURLException e) {
                throw new IllegalStateException(e);
            }
        }
        if (jars.isEmpty()) {
            return parent;
        }
        LOG.infof("Delegates from %s", jars);
        return new URLClassLoader("processes", jars.toArray(URL[]::new), parent);
    }

    static void deploy(RepositoryService repository, Path dir) {
        DeploymentBuilder bundled = repository.createDeployment().name("drover-flowable-bundled").enableDuplicateFiltering();
        for (String resource : BUNDLED) {
            try (InputStream in = ProcessFiles.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("missing " + resource);
                }
                bundled.addBytes(resource, in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        bundled.deploy();
        List<Path> models = new ArrayList<>(files(dir, ".bpmn20.xml"));
        files(dir, ".bpmn").forEach(models::add);
        if (models.isEmpty()) {
            return;
        }
        DeploymentBuilder user = repository.createDeployment().name("drover-flowable-" + dir.getFileName()).enableDuplicateFiltering();
        for (Path model : models) {
            try {
                user.addBytes(model.getFileName().toString(), Files.readAllBytes(model));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + model, e);
            }
        }
        user.deploy();
        LOG.infof("Deployed %d process models from %s", models.size(), dir);
    }

    private static List<Path> files(Path dir, String suffix) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }
}
