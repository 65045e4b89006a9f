package io.drover.operator.chart;

import io.drover.operator.testing.TestCluster;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chart's alert rules (templates/prometheusrule.yaml) as Prometheus judges them: rendered by
 * Helm, checked by {@code promtool check rules}, and unit-tested by {@code promtool test rules}
 * (src/test/resources/alerts/drover-alerts.test.yaml: every alert firing on the series that should
 * fire it, and silent on a healthy fleet). promtool is Prometheus 3.16's, built from its Go module, which
 * {@code make test-binaries} puts beside the other test binaries.
 */
class AlertRulesTest {
    static Path dir;
    static List<Map<String, Object>> rules;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void renderTheRules() throws Exception {
        var rendered = io.drover.operator.testing.Command.run(List.of(TestCluster.binDir().resolve("helm").toString(), "template", "d",
                HelmChartTest.CHART.toString(), "--kube-version", "1.34.2", "--set", "metrics.prometheusRule.enabled=true", "--set", "metrics.podMonitor.enabled=true",
                "--show-only", "templates/prometheusrule.yaml"));
        assertThat(rendered.exit()).as(rendered.output()).isZero();
        GenericKubernetesResource rule = Serialization.unmarshal(rendered.output(), GenericKubernetesResource.class);
        Map<String, Object> spec = (Map<String, Object>) rule.getAdditionalProperties().get("spec");
        dir = Files.createTempDirectory("drover-alerts");
        Files.writeString(dir.resolve("rules.yaml"), Serialization.asYaml(spec));
        try (InputStream tests = AlertRulesTest.class.getResourceAsStream("/alerts/drover-alerts.test.yaml")) {
            Files.write(dir.resolve("drover-alerts.test.yaml"), Objects.requireNonNull(tests).readAllBytes());
        }
        rules = new ArrayList<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) spec.get("groups")) {
            rules.addAll((List<Map<String, Object>>) group.get("rules"));
        }
    }

    @Test
    void promtoolAcceptsTheRules() throws Exception {
        var check = io.drover.operator.testing.Command.run(List.of(promtool(), "check", "rules", dir.resolve("rules.yaml").toString()));
        assertThat(check.exit()).as(check.output()).isZero();
        assertThat(check.output()).contains("SUCCESS: " + rules.size() + " rules found");
    }

    @Test
    void everyAlertFiresWhenItShouldAndOnlyThen() throws Exception {
        var test = io.drover.operator.testing.Command.run(List.of(promtool(), "test", "rules", dir.resolve("drover-alerts.test.yaml").toString()));
        assertThat(test.exit()).as(test.output()).isZero();
        String tests = Files.readString(dir.resolve("drover-alerts.test.yaml"));
        for (Map<String, Object> rule : rules) {
            assertThat(tests).as("a promtool test of " + rule.get("alert")).contains("alertname: " + rule.get("alert"));
        }
    }

    @Test
    void everyAlertHasARunbookSection() throws Exception {
        String runbook = Files.readString(TestCluster.repoRoot().resolve("docs/runbook.md"));
        for (Map<String, Object> rule : rules) {
            String alert = (String) rule.get("alert");
            assertThat(runbook).as("docs/runbook.md section for " + alert).contains("\n## " + alert + "\n");
            @SuppressWarnings("unchecked")
            Map<String, String> annotations = (Map<String, String>) rule.get("annotations");
            assertThat(annotations.get("runbook_url")).endsWith("docs/runbook.md#" + alert.toLowerCase(java.util.Locale.ROOT));
        }
    }

    private static String promtool() {
        Path p = TestCluster.binDir().resolve("promtool");
        if (!Files.isExecutable(p)) {
            throw new IllegalStateException(p + " not found: `make test-binaries` builds it (tools/build-binaries.sh prometheus)");
        }
        return p.toString();
    }
}
