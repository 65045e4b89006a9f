package io.drover.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * An ExecutorCluster for a test, read from a YAML file under src/test/resources/fixtures and
 * changed through the spec's own field paths: a test says which field it sets
 * ({@code set("database.credentialsSecret.name", "wrong-db")}) instead of rewriting text, so a
 * fixture that changes shape fails loudly rather than silently not matching a replacement.
 * The suites set what depends on the run (name, namespace, schema, the database's address).
 */
final class ClusterFixture {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            // "64" stays a string (a CPU quantity), not the number 64.
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS));

    private final ObjectNode root;

    private ClusterFixture(ObjectNode root) {
        this.root = root;
    }

    /** The fixture {@code fixtures/<file>} from the test classpath. */
    static ClusterFixture load(String file) {
        try (InputStream in = ClusterFixture.class.getResourceAsStream("/fixtures/" + file)) {
            if (in == null) {
                throw new IllegalArgumentException("no fixture fixtures/" + file + " on the test classpath");
            }
            return new ClusterFixture((ObjectNode) YAML.readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    ClusterFixture named(String name, String namespace) {
        ObjectNode metadata = root.withObject("/metadata");
        metadata.put("name", name);
        metadata.put("namespace", namespace);
        return this;
    }

    /** Sets {@code spec.<path>} (dotted), creating the objects on the way. */
    ClusterFixture set(String path, Object value) {
        String[] keys = path.split("\\.");
        ObjectNode parent = root.withObject("/spec");
        for (int i = 0; i < keys.length - 1; i++) {
            parent = parent.withObject("/" + keys[i]);
        }
        parent.set(keys[keys.length - 1], YAML.valueToTree(value));
        return this;
    }

    /** Sets {@code spec.<path>} to a value written in YAML, e.g. a flow map {@code {enabled: true}}. */
    ClusterFixture setYaml(String path, String yaml) {
        try {
            return set(path, YAML.readTree(yaml));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Adds an environment variable to the executor containers ({@code spec.env}). */
    ClusterFixture env(String name, String value) {
        ArrayNode env = root.withObject("/spec").withArray("env");
        env.addObject().put("name", name).put("value", value);
        return this;
    }

    String get(String path) {
        JsonNode node = root.at("/spec/" + path.replace('.', '/'));
        if (node.isMissingNode()) {
            throw new IllegalArgumentException("the fixture has no spec." + path);
        }
        return node.asText();
    }

    String yaml() {
        try {
            return YAML.writeValueAsString(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return yaml();
    }
}
