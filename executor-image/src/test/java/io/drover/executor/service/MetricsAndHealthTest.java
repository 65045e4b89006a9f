package io.drover.executor.service;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.PostgresResource;
import io.drover.executor.testing.RepoFiles;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

/** /q/metrics lists the documented meters with plausible values; /q/health reflects the engine. */
@QuarkusTest
@QuarkusTestResource(PostgresResource.class)
class MetricsAndHealthTest {
    @Inject
    AgroalDataSource dataSource;

    @Inject
    ExecutorNode service;

    @Test
    void prometheusEndpointHasTheDocumentedMetrics() throws Exception {
        Jobs jobs = new Jobs(dataSource, "quarkus_test");
        jobs.enqueue(300, "noop", "", 3);
        jobs.enqueue(5, "sleep", "not-a-number", 3);
        service.jobsEnqueued();
        Jobs.await("jobs handled", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
        Thread.sleep(200);

        String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
        assertThat(value(metrics, "drover_jobs_executed_total{outcome=\"succeeded\",type=\"noop\"}")).isGreaterThanOrEqualTo(300);
        assertThat(value(metrics, "drover_jobs_executed_total{outcome=\"dead_lettered\",type=\"sleep\"}")).isGreaterThanOrEqualTo(5);
        assertThat(value(metrics, "drover_job_execution_seconds_count{type=\"noop\"}")).isGreaterThanOrEqualTo(300);
        assertThat(value(metrics, "drover_acquisition_seconds_count")).isPositive();
        assertThat(value(metrics, "drover_acquisition_jobs_sum")).isGreaterThanOrEqualTo(305);
        assertThat(value(metrics, "drover_queue_capacity")).isEqualTo(1024);
        assertThat(value(metrics, "drover_threads")).isEqualTo(8);
        assertThat(value(metrics, "drover_queue_depth")).isBetween(0.0, 1024.0);
        assertThat(value(metrics, "drover_threads_busy")).isBetween(0.0, 8.0);
        assertThat(value(metrics, "drover_completion_batch_sum")).isGreaterThanOrEqualTo(305);
        for (String name : new String[] {"drover_global_lock_wait_seconds_count", "drover_global_lock_hold_seconds_count",
                "drover_global_lock_timeouts_total", "drover_optimistic_lock_failures_total", "drover_locks_lost_total",
                "drover_outcomes_rewrites_unchanged_total", "drover_locks_recovered_total", "drover_jobs_released_total", "drover_acquisition_errors_total",
                "drover_jobs_held", "drover_completion_pending"}) {
            assertThat(value(metrics, name)).as(name).isGreaterThanOrEqualTo(0);
        }
        // The gauges are refreshed every backlogRefreshInterval; a backlog of 0 alone is also what
        // they read before the jobs were written (a loaded CI machine saw that reading here), so
        // wait for a refresh that has seen the dead letters too.
        Jobs.await("backlog gauges refreshed after the jobs ran", Duration.ofSeconds(30), () -> {
            String m = given().get("/q/metrics").then().extract().asString();
            return value(m, "drover_due_backlog") == 0 && value(m, "drover_dead_letters") >= 5;
        });
        String refreshed = given().get("/q/metrics").then().extract().asString();
        assertThat(value(refreshed, "drover_due_lag_seconds")).as("no due job left: no lag").isZero();
        assertThat(value(refreshed, "drover_dead_letters")).isGreaterThanOrEqualTo(5);

        // Every drover_* series the chart's alert rules and dashboard query is one this executor serves.
        for (String series : queriedSeries()) {
            assertThat(refreshed).as(series + " (charts/drover-operator: templates/prometheusrule.yaml, dashboards/)")
                    .containsPattern("(?m)^" + series + "[{ ]");
        }

        // The same figures as one JSON document, outside the token-guarded /api, for the operator.
        var figures = given().get("/q/drover/node").then().statusCode(200).extract().jsonPath();
        assertThat(figures.getString("lockMode")).isEqualTo("SkipLocked");
        assertThat(figures.getInt("threads")).isEqualTo(8);
        assertThat(figures.getInt("queueSize")).isEqualTo(1024);
        assertThat(figures.getDouble("succeeded")).isGreaterThanOrEqualTo(300);
        assertThat(figures.getDouble("deadLettered")).isGreaterThanOrEqualTo(5);
        assertThat(figures.getDouble("executed")).isGreaterThanOrEqualTo(305);
        assertThat(figures.getDouble("executionSeconds")).isPositive();
        assertThat(figures.getDouble("acquisitions")).isPositive();
        assertThat(figures.getDouble("acquiredJobs")).isGreaterThanOrEqualTo(305);
        assertThat(figures.getDouble("started")).isGreaterThanOrEqualTo(300);
        assertThat(figures.getDouble("dueBacklog")).isZero();
        assertThat(figures.getDouble("deadLetters")).isGreaterThanOrEqualTo(5);
        assertThat(figures.getMap("$")).as("a node that takes jobs has no problem to name").containsEntry("problem", null);
    }

    /** The drover_* series named in the chart's alert rules and dashboard (whole names, as scraped: _sum, _bucket, ...). */
    private static java.util.Set<String> queriedSeries() throws java.io.IOException {
        String rules = java.nio.file.Files.readString(RepoFiles.resolve("charts/drover-operator/templates/prometheusrule.yaml"))
                + java.nio.file.Files.readString(RepoFiles.resolve("charts/drover-operator/dashboards/drover-fleet.json"));
        java.util.Set<String> names = new java.util.TreeSet<>();
        Matcher m = Pattern.compile("\\b(drover_[a-z_]+)\\b").matcher(rules);
        while (m.find()) {
            // drover_cluster is the PodMonitor's label; drover_cluster_* are the operator's gauges.
            if (!m.group(1).startsWith("drover_cluster")) {
                names.add(m.group(1));
            }
        }
        assertThat(names).as("metrics the alert rules query").isNotEmpty();
        return names;
    }

    @Test
    void healthReflectsTheEngineAndTheDatabase() {
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.name", hasItem("drover-acquisition"))
                .body("checks.name", hasItem("drover-database"))
                .body("checks.size()", equalTo(2))
                .body("checks.find { it.name == 'drover-acquisition' }.data.lockMode", equalTo("SkipLocked"));
        given().get("/q/health/live").then().statusCode(200).body("checks.name", hasItem("drover-engine"));
    }

    /** The value of one sample line, e.g. {@code drover_queue_depth 3.0}; fails if the sample is absent. */
    static double value(String exposition, String sample) {
        Matcher m = Pattern.compile("^" + Pattern.quote(sample) + "(?:\\{[^}]*})? ([-+0-9.eENa]+)$", Pattern.MULTILINE)
                .matcher(exposition);
        assertThat(m.find()).as("metric sample " + sample + " present").isTrue();
        return Double.parseDouble(m.group(1));
    }
}
