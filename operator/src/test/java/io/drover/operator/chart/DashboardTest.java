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
        var check = HelmChartTest.run(List.of(TestCluster.binDir().resolve("promtool").toString(), "check", "rules", file.toString()));
        assertThat(check.exit()).as(check.output()).isZero();
        assertThat(check.output()).contains("SUCCESS: " + exprs.size() + " rules found");
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
