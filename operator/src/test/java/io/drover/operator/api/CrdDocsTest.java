package io.drover.operator.api;

import io.drover.contract.SettingDefaults;
import io.drover.operator.resources.ExecutorEnvironment;
import io.drover.operator.testing.Clusters;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CRD against docs/configuration.md, the contract of the executor's settings (the executor's
 * ConfigurationDocsTest holds the executor to the same table): every executor setting the CRD
 * takes is a documented setting under the same name, the operator passes each of them on, and
 * the default the CRD states (a schema default, or "Executor default X" in its description) is
 * the documented one. A default changed in one place fails the build until the others follow.
 */
class CrdDocsTest {
    private static final Pattern ROW = Pattern.compile("^\\| `([a-zA-Z.]+)` \\| ([^|]+) \\|");
    /** A spec setting every executor setting the CRD has, so ExecutorEnvironment passes all of them on. */
    private static final String EVERY_SETTING = """
            lockMode: Global
            threads: 2
            virtualThreads: true
            queueSize: 64
            acquirePageSize: 8
            acquireInterval: 2s
            globalLockWaitTime: 3s
            globalLockPollInterval: 30ms
            globalLockMaxHold: 4s
            lockExpiry: 40s
            maxAttempts: 5
            retryBackoff: 2s
            retryBackoffMax: 1m
            completionBatchSize: 100
            shutdownGracePeriod: 20s
            jobTimeout: 1m
            jobTimeouts: {report: 2h}
            maxCrashes: 2
            startupTimeout: 1m
            schema: billing
            """;

    @Test
    void everyExecutorSettingInTheCrdIsDocumentedAndPassedOn() throws Exception {
        Map<String, String> documented = documented();
        Map<String, JSONSchemaProps> spec = specProperties();
        var inCrd = new TreeSet<>(spec.keySet());
        inCrd.retainAll(documented.keySet());
        var passed = new TreeSet<>(ExecutorEnvironment.settings(Clusters.parse(Clusters.yaml("every", EVERY_SETTING)).getSpec()).keySet());
        assertThat(passed).as("what ExecutorEnvironment hands the executor, under the documented names")
                .isSubsetOf(documented.keySet()).isEqualTo(inCrd);
    }

    @Test
    void theDefaultsTheCrdStatesAreTheDocumentedOnes() throws Exception {
        Map<String, String> documented = documented();
        specProperties().forEach((name, p) -> {
            String doc = documented.get(name);
            if (doc == null) {
                return; // not an executor setting (replicas, database, resources, ...)
            }
            String description = p.getDescription() == null ? "" : p.getDescription();
            if (p.getDefault() != null) {
                assertThat(p.getDefault().asText()).as("%s: the CRD's default against the docs", name).isEqualTo(doc);
            } else if (doc.equals("none")) {
                assertThat(description).as("%s has no executor default", name).doesNotContain("Executor default");
            } else {
                assertThat(description.contains("Executor default " + doc + ".") || description.contains("the executor's " + doc + "."))
                        .as("%s: its description must say 'Executor default %s.' (docs/configuration.md); it says: %s", name, doc, description)
                        .isTrue();
            }
        });
    }

    /** The shared pool's size is Quarkus' setting, documented beside the table; the CRD states its default. */
    @Test
    void thePoolSizeTheCrdStatesIsTheDocumentedOne() throws Exception {
        String description = specProperties().get("database").getProperties().get("maxPoolSize").getDescription();
        assertThat(description).contains("Executor default " + SettingDefaults.POOL_SIZE + ".");
        assertThat(Files.readString(repo().resolve("docs/configuration.md")))
                .contains("`QUARKUS_DATASOURCE_JDBC_MAX_SIZE` (default " + SettingDefaults.POOL_SIZE + ";");
    }

    private static Map<String, JSONSchemaProps> specProperties() throws Exception {
        Path crd = repo().resolve("crds/executorclusters.drover.io-v1.yml");
        CustomResourceDefinition d = Serialization.unmarshal(Files.readString(crd), CustomResourceDefinition.class);
        return d.getSpec().getVersions().getFirst().getSchema().getOpenAPIV3Schema().getProperties().get("spec").getProperties();
    }

    private static Map<String, String> documented() throws Exception {
        Map<String, String> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(repo().resolve("docs/configuration.md"))) {
            Matcher m = ROW.matcher(line);
            if (m.find()) {
                rows.put(m.group(1), m.group(2).trim().replace("`", ""));
            }
        }
        assertThat(rows).as("the settings table of docs/configuration.md").isNotEmpty();
        return rows;
    }

    private static Path repo() {
        return Path.of(System.getProperty("it.repo.root", ".."));
    }
}
