package io.drover.operator.chart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.drover.operator.testing.TestCluster;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboard (charts/drover-operator/dashboards/drover-fleet.json): well formed, every
 * panel's query valid PromQL as Prometheus's own parser judges it (promtool, on the queries
 * turned into recording rules), filtered by the namespace and cluster variables. That every
 * series it reads is one an executor serves is checked by the executor's MetricsAndHealthTest.
 */
class DashboardTest {
    static final Path DASHBOARD = HelmChartTest.CHART.resolve("dashboards/drover-fleet.json");

    @Test
    void theDashboardIsWellFormed() throws Exception {
        JsonNode d = new ObjectMapper().readTree(Files.readString(DASHBOARD));
        assertThat(d.get("uid").asText()).isEqualTo("drover-fleet");
        List<String> variables = new ArrayList<>();
        d.get("templating").get("list").forEach(v -> variables.add(v.get("name").asText()));
        assertThat(variables).containsExactly("datasource", "namespace", "cluster");
        Set<Integer> ids = new HashSet<>();
        for (JsonNode panel : d.get("panels")) {
            assertThat(ids.add(panel.get("id").asInt())).as("unique panel id " + panel.get("id")).isTrue();
            if (!panel.get("type").asText().equals("row")) {
                assertThat(panel.get("datasource").get("uid").asText()).isEqualTo("${datasource}");
                assertThat(panel.get("targets")).as(panel.get("title").asText()).isNotEmpty();
            }
        }
        for (String expr : queries(d)) {
            assertThat(expr).as("filtered by the dashboard's variables").contains("namespace=\"$namespace\"", "drover_cluster=~\"$cluster\"");
        }
    }

    @Test
    void everyQueryIsValidPromQL() throws Exception {
        List<String> exprs = queries(new ObjectMapper().readTree(Files.readString(DASHBOARD)));
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        for (int i = 0; i < exprs.size(); i++) {
            String concrete = exprs.get(i).replace("$__rate_interval", "1m").replace("$namespace", "pay").replace("$cluster", ".+");
            rules.append("      - record: dashboard_query_").append(i).append("\n        expr: '")
                    .append(concrete.replace("'", "''")).append("'\n");
        }
        Path file = Files.createTempFile("drover-dashboard", ".rules.yaml");
        Files.writeString(file, rules);
        var check = io.drover.operator.testing.Command.run(List.of(TestCluster.binDir().resolve("promtool").toString(), "check", "rules", file.toString()));
        assertThat(check.exit()).as(check.output()).isZero();
        assertThat(check.output()).contains("SUCCESS: " + exprs.size() + " rules found");
    }

    /**
     * The rules of Grafana's dashboard-linter that apply to a Prometheus dashboard (the linter
     * itself is not served by the Go module proxy here): the datasource is a variable, every panel
     * has a title, a description and a unit, and every rate-like function ranges over
     * $__rate_interval, so a panel stays right whatever the scrape interval.
     */
    @Test
    void theDashboardPassesTheLintersRules() throws Exception {
        JsonNode d = new ObjectMapper().readTree(Files.readString(DASHBOARD));
        JsonNode datasource = d.get("templating").get("list").get(0);
        assertThat(datasource.get("type").asText()).isEqualTo("datasource");
        assertThat(datasource.get("query").asText()).isEqualTo("prometheus");
        Pattern rangeOfRate = Pattern.compile("\\b(rate|irate|increase)\\([^\\[]*\\[([^\\]]*)]");
        for (JsonNode panel : d.get("panels")) {
            String title = panel.path("title").asText();
            assertThat(title).as("panel %s has a title", panel.get("id")).isNotBlank();
            if (panel.get("type").asText().equals("row")) {
                continue;
            }
            assertThat(panel.path("description").asText()).as("%s: a description", title).isNotBlank();
            assertThat(panel.path("fieldConfig").path("defaults").path("unit").asText()).as("%s: a unit", title).isNotBlank();
            for (JsonNode t : panel.get("targets")) {
                Matcher m = rangeOfRate.matcher(t.get("expr").asText());
                while (m.find()) {
                    assertThat(m.group(2)).as("%s: %s", title, m.group()).isEqualTo("$__rate_interval");
                }
            }
        }
    }

    /** docs/dashboards/ holds the chart's dashboard for users without the chart; byte for byte, as crds/ holds the CRD. */
    @Test
    void theDocsCopyIsTheChartsDashboard() throws Exception {
        Path copy = HelmChartTest.CHART.resolve("../../docs/dashboards/drover-fleet.json");
        assertThat(Files.readString(copy)).as("docs/dashboards/drover-fleet.json is out of date: cp " + DASHBOARD.getFileName()
                + " from charts/drover-operator/dashboards/").isEqualTo(Files.readString(DASHBOARD));
    }

    /** Grafana's sidecar loads the dashboard from a ConfigMap carrying its label, when asked for. */
    @Test
    void theChartShipsItForGrafanasSidecarWhenAsked() throws Exception {
        assertThat(PodMonitorTest.render()).noneMatch(o -> o.getKind().equals("ConfigMap"));
        var configMap = PodMonitorTest.render("--set", "metrics.grafanaDashboard.enabled=true").stream()
                .filter(o -> o.getKind().equals("ConfigMap")).findFirst().orElseThrow();
        assertThat(configMap.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
        @SuppressWarnings("unchecked")
        var data = (java.util.Map<String, String>) configMap.getAdditionalProperties().get("data");
        assertThat(data.get("drover-fleet.json")).isEqualTo(Files.readString(DASHBOARD).strip());
    }

    private static List<String> queries(JsonNode d) {
        List<String> exprs = new ArrayList<>();
        for (JsonNode panel : d.get("panels")) {
            if (panel.has("targets")) {
                panel.get("targets").forEach(t -> exprs.add(t.get("expr").asText()));
            }
        }
        assertThat(exprs).hasSizeGreaterThan(10);
        return exprs;
    }
}
