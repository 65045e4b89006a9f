package io.drover.operator.chart;

import io.drover.operator.testing.TestCluster;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The chart's PodMonitors: rendered when asked for, or when the API serves them ("auto"), and scraping what the operator manages. */
class PodMonitorTest {
    @Test
    void autoRendersThemOnlyWhereThePrometheusOperatorIs() throws Exception {
        assertThat(kinds(render())).doesNotContain("PodMonitor", "PrometheusRule");
        assertThat(kinds(render("--api-versions", "monitoring.coreos.com/v1"))).contains("PodMonitor", "PrometheusRule");
        assertThat(kinds(render("--api-versions", "monitoring.coreos.com/v1", "--set", "metrics.podMonitor.enabled=false",
                "--set", "metrics.prometheusRule.enabled=false"))).doesNotContain("PodMonitor", "PrometheusRule");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theExecutorsAreScrapedInTheWatchedNamespacesWithTheirClusterName() throws Exception {
        Map<String, Object> spec = executorsMonitor(render("--set", "metrics.podMonitor.enabled=true",
                "--set", "watchNamespaces={team-a,team-b}", "--set", "metrics.podMonitor.labels.release=kps"));
        assertThat((Map<String, Object>) spec.get("namespaceSelector")).isEqualTo(Map.of("matchNames", List.of("team-a", "team-b")));
        assertThat(((Map<String, Object>) spec.get("selector")).get("matchLabels"))
                .isEqualTo(Map.of("app.kubernetes.io/name", "drover-executor", "app.kubernetes.io/managed-by", "drover-operator"));
        Map<String, Object> endpoint = ((List<Map<String, Object>>) spec.get("podMetricsEndpoints")).getFirst();
        assertThat(endpoint).containsEntry("port", "http").containsEntry("path", "/q/metrics");
        assertThat((List<Map<String, Object>>) endpoint.get("relabelings")).containsExactly(Map.of(
                "sourceLabels", List.of("__meta_kubernetes_pod_label_app_kubernetes_io_instance"), "targetLabel", "drover_cluster"));

        Map<String, Object> wide = executorsMonitor(render("--set", "metrics.podMonitor.enabled=true", "--set", "clusterWide=true"));
        assertThat((Map<String, Object>) wide.get("namespaceSelector")).isEqualTo(Map.of("any", true));
    }

    private static List<GenericKubernetesResource> render(String... values) throws Exception {
        List<String> command = new ArrayList<>(List.of(TestCluster.binDir().resolve("helm").toString(), "template", "d",
                HelmChartTest.CHART.toString(), "--namespace", "drover-system", "--kube-version", "1.34.2"));
        command.addAll(Arrays.asList(values));
        var rendered = HelmChartTest.run(command);
        assertThat(rendered.exit()).as(rendered.output()).isZero();
        List<GenericKubernetesResource> objects = new ArrayList<>();
        for (String doc : rendered.output().split("(?m)^---$")) {
            if (doc.contains("kind:")) {
                objects.add(Serialization.unmarshal(doc, GenericKubernetesResource.class));
            }
        }
        return objects;
    }

    private static List<String> kinds(List<GenericKubernetesResource> objects) {
        return objects.stream().map(GenericKubernetesResource::getKind).toList();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> executorsMonitor(List<GenericKubernetesResource> objects) {
        GenericKubernetesResource m = objects.stream().filter(o -> o.getKind().equals("PodMonitor")
                && o.getMetadata().getName().endsWith("-executors")).findFirst().orElseThrow();
        return (Map<String, Object>) m.getAdditionalProperties().get("spec");
    }
}
