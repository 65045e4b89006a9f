package io.drover.bench.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class PrometheusTest {
    private static final String NODE_A = """
            # HELP drover_acquisition_jobs Jobs locked per acquisition cycle
            drover_acquisition_jobs_count 10.0
            drover_acquisition_jobs_sum 2560.0
            drover_jobs_executed_total{outcome="succeeded",type="noop"} 2560.0
            drover_job_start_delay_seconds_bucket{le="0.001"} 0.0
            drover_job_start_delay_seconds_bucket{le="0.01"} 50.0
            drover_job_start_delay_seconds_bucket{le="0.1"} 100.0
            drover_job_start_delay_seconds_bucket{le="+Inf"} 100.0
            """;
    private static final String NODE_B = """
            drover_acquisition_jobs_count 30.0
            drover_acquisition_jobs_sum 2440.0
            drover_jobs_executed_total{outcome="succeeded",type="noop"} 2440.0
            drover_job_start_delay_seconds_bucket{le="0.001"} 0.0
            drover_job_start_delay_seconds_bucket{le="0.01"} 0.0
            drover_job_start_delay_seconds_bucket{le="0.1"} 100.0
            drover_job_start_delay_seconds_bucket{le="+Inf"} 100.0
            """;

    @Test
    void sumsAndMeansAcrossNodes() {
        Prometheus p = Prometheus.parse(NODE_A + NODE_B);
        assertThat(p.sum("drover_jobs_executed_total", l -> "noop".equals(l.get("type")))).isEqualTo(5000);
        assertThat(p.mean("drover_acquisition_jobs")).isEqualTo(125.0);
    }

    @Test
    void quantilesInterpolateInsideTheMergedBuckets() {
        Prometheus p = Prometheus.parse(NODE_A + NODE_B);
        // 200 observations: 50 in (1ms, 10ms], 150 in (10ms, 100ms]
        assertThat(p.quantile("drover_job_start_delay_seconds", 0.25)).isCloseTo(0.01, within(1e-9));
        assertThat(p.quantile("drover_job_start_delay_seconds", 0.5)).isCloseTo(0.01 + 0.09 / 3, within(1e-9));
        assertThat(p.quantile("drover_job_start_delay_seconds", 1.0)).isCloseTo(0.1, within(1e-9));
    }

    @Test
    void differencesBetweenScrapesCountOnlyWhatHappenedInBetween() {
        Prometheus before = Prometheus.parse(NODE_A);
        Prometheus after = Prometheus.parse(NODE_A.replace("_count 10.0", "_count 20.0").replace("_sum 2560.0", "_sum 3560.0"));
        assertThat(after.meanSince("drover_acquisition_jobs", before)).isEqualTo(100.0);
        assertThat(after.quantileSince("drover_job_start_delay_seconds", 0.5, before)).isNaN(); // no new observations
    }

    @Test
    void aMetricTheNodesLackIsTheGivenAbsentValue() {
        Prometheus before = Prometheus.parse("process_cpu_time_ns_total 1.0E9\n");
        Prometheus after = Prometheus.parse("process_cpu_time_ns_total 3.5E9\n");
        assertThat(after.sumSince("process_cpu_time_ns_total", before, Double.NaN)).isEqualTo(2.5e9);
        assertThat(after.sumSince("no_such_metric", before, Double.NaN)).isNaN();
        assertThat(Prometheus.empty().sumSince("process_cpu_time_ns_total", Prometheus.empty(), -1)).isEqualTo(-1);
    }
}
