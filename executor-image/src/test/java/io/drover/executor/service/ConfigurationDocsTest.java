package io.drover.executor.service;

import io.drover.contract.SettingDefaults;
import io.drover.executor.config.Durations;
import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.testing.RepoFiles;
import io.smallrye.config.WithDefault;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/configuration.md is the contract of the executor's settings: its table must name exactly
 * the settings the executor reads ({@link DroverConfig}), and each default it states must be the
 * one the executor applies (ExecutorSettings.Builder, or the setting's @WithDefault). Changing a
 * default or adding a setting without the docs fails the build (Flink's docs-completeness idea).
 * The operator's CrdDocsTest holds the CRD's "Executor default" texts to the same table.
 */
class ConfigurationDocsTest {
    private static final Pattern ROW = Pattern.compile("^\\| `([a-zA-Z.]+)` \\| ([^|]+) \\|");

    @Test
    void theTableNamesEverySettingTheExecutorReadsAndNoOther() throws Exception {
        assertThat(new TreeSet<>(documented().keySet())).isEqualTo(new TreeSet<>(settings(DroverConfig.class, "").keySet()));
    }

    @Test
    void everyDocumentedDefaultIsTheOneTheExecutorApplies() throws Exception {
        ExecutorSettings defaults = ExecutorSettings.builder().nodeName("docs-test").build();
        Map<String, Method> settings = settings(DroverConfig.class, "");
        for (Map.Entry<String, String> row : documented().entrySet()) {
            String name = row.getKey();
            String doc = row.getValue();
            Method setting = settings.get(name);
            WithDefault withDefault = setting.getAnnotation(WithDefault.class);
            Method component = component(name);
            if (withDefault != null) {
                assertThat(same(doc, withDefault.value(), setting.getReturnType()))
                        .as("%s: docs say %s, @WithDefault says %s", name, doc, withDefault.value()).isTrue();
            } else if (component != null && !name.equals("nodeName")) {
                Object applied = component.invoke(defaults);
                String text = applied instanceof Map<?, ?> m && m.isEmpty() ? "none" : String.valueOf(applied);
                assertThat(same(doc, text, component.getReturnType()))
                        .as("%s: docs say %s, ExecutorSettings.Builder applies %s", name, doc, text).isTrue();
            } else if (!name.equals("nodeName")) {
                assertThat(doc).as("%s has no default in the executor: the docs must say none", name).isEqualTo("none");
            }
        }
    }

    /**
     * application.properties cannot name a Java constant, so the one default it must repeat (the
     * schema Flyway migrates when drover.schema is not set) is held to {@link SettingDefaults} here.
     */
    @Test
    void applicationPropertiesFallBackToTheDeclaredSchema() throws Exception {
        String properties = applicationProperties();
        Matcher fallback = Pattern.compile("\\$\\{drover\\.schema:([^}]*)}").matcher(properties);
        int seen = 0;
        while (fallback.find()) {
            seen++;
            assertThat(fallback.group(1)).as("the ${drover.schema:...} fallback in application.properties").isEqualTo(SettingDefaults.SCHEMA);
        }
        assertThat(seen).as("application.properties reads drover.schema").isPositive();
    }

    /**
     * The shared pool's size is Quarkus' setting, so application.properties states its default;
     * held to {@link SettingDefaults#POOL_SIZE} (which the CRD states) and to the docs.
     */
    @Test
    void theSharedPoolSizeIsTheDeclaredOne() throws Exception {
        String properties = applicationProperties();
        Matcher size = Pattern.compile("(?m)^quarkus\\.datasource\\.jdbc\\.max-size=(\\S+)$").matcher(properties);
        assertThat(size.find()).as("application.properties sets quarkus.datasource.jdbc.max-size").isTrue();
        assertThat(size.group(1)).as("quarkus.datasource.jdbc.max-size").isEqualTo(SettingDefaults.POOL_SIZE);
        String docs = Files.readString(RepoFiles.resolve("docs/configuration.md"));
        assertThat(docs).as("docs/configuration.md states the pool's default")
                .contains("`QUARKUS_DATASOURCE_JDBC_MAX_SIZE` (default " + SettingDefaults.POOL_SIZE + ";");
    }

    private static String applicationProperties() throws java.io.IOException {
        try (var in = ConfigurationDocsTest.class.getResourceAsStream("/application.properties")) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private static boolean same(String doc, String actual, Class<?> type) {
        if (type == Duration.class) {
            return Durations.parse(doc).equals(Durations.parse(actual));
        }
        return doc.equals(actual);
    }

    private static Method component(String name) {
        for (var c : ExecutorSettings.class.getRecordComponents()) {
            if (c.getName().equals(name)) {
                return c.getAccessor();
            }
        }
        return null;
    }

    /** Setting name (dotted for groups: http.url) to its DroverConfig method. */
    private static Map<String, Method> settings(Class<?> group, String prefix) {
        Map<String, Method> found = new LinkedHashMap<>();
        for (Method m : group.getDeclaredMethods()) {
            if (m.isSynthetic() || m.isDefault() || java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            if (m.getReturnType().isInterface() && m.getReturnType().getEnclosingClass() == DroverConfig.class) {
                found.putAll(settings(m.getReturnType(), prefix + m.getName() + "."));
            } else {
                found.put(prefix + m.getName(), m);
            }
        }
        return found;
    }

    /** Setting name to its default as the table writes it (backticks removed). */
    private static Map<String, String> documented() throws Exception {
        Map<String, String> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(RepoFiles.resolve("docs/configuration.md"))) {
            Matcher m = ROW.matcher(line);
            if (m.find()) {
                rows.put(m.group(1), m.group(2).trim().replace("`", ""));
            }
        }
        assertThat(rows).as("rows of the settings table in docs/configuration.md").isNotEmpty();
        return rows;
    }
}
