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
        assertThat(kinds(render("--api-versions", "monitoring.coreos.com/v1/PodMonitor", "--api-versions",
                "monitoring.coreos.com/v1/PrometheusRule"))).contains("PodMonitor", "PrometheusRule");
        assertThat(kinds(render("--api-versions", "monitoring.coreos.com/v1/PodMonitor", "--api-versions",
                "monitoring.coreos.com/v1/PrometheusRule", "--set", "metrics.podMonitor.enabled=false",
                "--set", "metrics.prometheusRule.enabled=false"))).doesNotContain("PodMonitor", "PrometheusRule");
        // A cluster with some of the Prometheus Operator's CRDs only: what it lacks is not rendered
        // (helm install failed on "no matches for kind PrometheusRule").
        List<String> partly = kinds(render("--api-versions", "monitoring.coreos.com/v1/PodMonitor"));
        assertThat(partly).contains("PodMonitor").doesNotContain("PrometheusRule");
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

    static List<GenericKubernetesResource> render(String... values) throws Exception {
        List<String> command = new ArrayList<>(List.of(TestCluster.binDir().resolve("helm").toString(), "template", "d",
                HelmChartTest.CHART.toString(), "--namespace", "drover-system", "--kube-version", "1.34.2"));
        command.addAll(Arrays.asList(values));
        var rendered = io.drover.operator.testing.Command.run(command);
        assertThat(rendered.exit()).as(rendered.output()).isZero();
        List<GenericKubernetesResource> objects = new ArrayList<>();
        for (String doc : rendered.output().split("(?m)^---$")) {
            if (doc.contains("kind:")) {
                objects.add(Serialization.unmarshal(doc, GenericKubernetesResource.class));
            }
        }
        return objects;
    }

    /**
     * e2e/prometheus/prometheus.yml scrapes as the PodMonitors do, for a Prometheus without its
     * operator (make run, ObservabilityE2E): what the e2e proves of the alerts and the dashboard
     * holds for the PodMonitors only while the two select, name and label the same.
     */
    @Test
    @SuppressWarnings("unchecked")
    void thePlainPrometheusConfigScrapesAsThePodMonitorsDo() throws Exception {
        List<GenericKubernetesResource> monitors = render("--set", "metrics.podMonitor.enabled=true");
        Map<String, Object> executors = executorsMonitor(monitors);
        Map<String, Object> operator = (Map<String, Object>) monitors.stream().filter(o -> o.getKind().equals("PodMonitor")
                && o.getMetadata().getName().endsWith("-operator")).findFirst().orElseThrow().getAdditionalProperties().get("spec");
        // Its @NAME@ placeholders (paths and namespaces, filled in by its users) are not YAML until filled.
        Map<String, Object> config = Serialization.unmarshal(java.nio.file.Files.readString(
                HelmChartTest.CHART.resolve("../../e2e/prometheus/prometheus.yml")).replaceAll("@[A-Z_]+@", "filled"), Map.class);
        Map<String, Map<String, Object>> jobs = new java.util.HashMap<>();
        ((List<Map<String, Object>>) config.get("scrape_configs")).forEach(j -> jobs.put((String) j.get("job_name"), j));

        for (var pair : List.of(Map.entry("drover-executors", executors), Map.entry("drover-operator", operator))) {
            Map<String, Object> job = jobs.get(pair.getKey());
            Map<String, Object> monitor = pair.getValue();
            Map<String, Object> endpoint = ((List<Map<String, Object>>) monitor.get("podMetricsEndpoints")).getFirst();
            List<Map<String, Object>> relabel = (List<Map<String, Object>>) job.get("relabel_configs");
            assertThat(job.get("metrics_path")).as(pair.getKey() + ": path").isEqualTo(endpoint.get("path"));
            assertThat(Boolean.TRUE.equals(job.get("honor_labels"))).as(pair.getKey() + ": honor labels")
                    .isEqualTo(Boolean.TRUE.equals(endpoint.get("honorLabels")));
            assertThat(relabel).as(pair.getKey() + ": the port the PodMonitor names")
                    .contains(keep("__meta_kubernetes_pod_container_port_name", (String) endpoint.get("port")));
            String name = ((Map<String, String>) ((Map<String, Object>) monitor.get("selector")).get("matchLabels")).get("app.kubernetes.io/name");
            assertThat(relabel).as(pair.getKey() + ": the pods the PodMonitor selects")
                    .contains(keep("__meta_kubernetes_pod_label_app_kubernetes_io_name", name));
            for (Map<String, Object> r : (List<Map<String, Object>>) endpoint.getOrDefault("relabelings", List.of())) {
                assertThat(relabel).as(pair.getKey() + ": the PodMonitor's relabelling")
                        .contains(Map.of("source_labels", r.get("sourceLabels"), "target_label", r.get("targetLabel")));
            }
        }
    }

    private static Map<String, Object> keep(String label, String regex) {
        return Map.of("source_labels", List.of(label), "regex", regex, "action", "keep");
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
