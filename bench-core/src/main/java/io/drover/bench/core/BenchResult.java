package io.drover.bench.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.util.List;

/**
 * One run's figures; serialised as the JSON document the local and in-cluster benchmarks
 * both write. Times in seconds and milliseconds as named. The cost per job: CPU microseconds
 * of the executor nodes (and of their JIT compiler threads among them) and of PostgreSQL over
 * the drain, commits (see {@link Commits}) and WAL
 * bytes, each divided by the jobs drained; jobs per database core-second is jobs over
 * PostgreSQL's CPU seconds, the rate one database core would sustain for a whole fleet. NaN
 * where a run cannot see a figure (PostgreSQL's CPU on another machine).
 */
public record BenchResult(
        String label,
        String kind,
        String lockMode,
        int acquirePageSize,
        int nodes,
        int threads,
        int queueSize,
        long jobs,
        long drained,
        boolean timedOut,
        double seconds,
        double jobsPerSecond,
        List<Double> intervalJobsPerSecond,
        double startDelayP50Ms,
        double startDelayP99Ms,
        double jobsPerAcquisition,
        double optimisticLockFailures,
        double globalLockWaitMeanMs,
        double globalLockTimeouts,
        double theoreticalMaxPerSecond,
        double percentOfTheoretical,
        double walBytesPerJob,
        double executorCpuMicrosPerJob,
        double executorJitCpuMicrosPerJob,
        double databaseCpuMicrosPerJob,
        double commitsPerJob,
        double jobsPerDatabaseCoreSecond) {

    /** How the benchmarks write their JSON documents: this record, and the local matrix's page. */
    public static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public String text() {
        StringBuilder b = new StringBuilder();
        b.append(String.format("%s: %,d of %,d jobs in %.1f s = %,.0f jobs/s%s%n", label, drained, jobs, seconds,
                jobsPerSecond, timedOut ? " (TIMED OUT: rate over the jobs drained)" : ""));
        if (!Double.isNaN(theoreticalMaxPerSecond)) {
            b.append(String.format("  theoretical max %,.0f jobs/s: reached %.1f%%%n", theoreticalMaxPerSecond, percentOfTheoretical));
        }
        b.append(String.format("  due-to-start delay p50 %.1f ms, p99 %.1f ms; jobs per acquisition %.1f; WAL %,.0f bytes/job",
                startDelayP50Ms, startDelayP99Ms, jobsPerAcquisition, walBytesPerJob));
        if (optimisticLockFailures > 0) {
            b.append(String.format("; optimistic lock failures %,.0f", optimisticLockFailures));
        }
        if (!Double.isNaN(globalLockWaitMeanMs)) {
            b.append(String.format("; global lock wait mean %.2f ms, timeouts %.0f", globalLockWaitMeanMs, globalLockTimeouts));
        }
        b.append(String.format("%n  cost per job: executor CPU %.1f µs (JIT %.1f), database CPU %.1f µs, %.4f commits;"
                        + " %,.0f jobs per database core-second", executorCpuMicrosPerJob, executorJitCpuMicrosPerJob,
                databaseCpuMicrosPerJob, commitsPerJob, jobsPerDatabaseCoreSecond));
        return b.append('\n').toString();
    }

    /** A total over the jobs it was spent on, NaN when there were none. */
    public static double perJob(double total, long jobs) {
        return jobs == 0 ? Double.NaN : total / jobs;
    }

    /** Rounded to {@code decimals} places for the documents; NaN and infinities as they are. */
    public static double round(double v, int decimals) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return v;
        }
        double f = Math.pow(10, decimals);
        return Math.round(v * f) / f;
    }

    /** Jobs per CPU-second of the database, from its CPU microseconds per job. */
    public static double perDatabaseCoreSecond(double databaseCpuMicrosPerJob) {
        return databaseCpuMicrosPerJob > 0 ? 1e6 / databaseCpuMicrosPerJob : Double.NaN;
    }
}
