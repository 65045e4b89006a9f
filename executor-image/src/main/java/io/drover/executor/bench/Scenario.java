package io.drover.executor.bench;

import io.drover.executor.acquire.LockMode;

import java.time.Duration;

/** One benchmark run's settings; the executor settings keep their usual names. */
public record Scenario(JobKind kind, int jobs, int nodes, LockMode lockMode, int acquirePageSize, int threads,
                       int queueSize, Duration timeout) {

    public String label() {
        return kind.name() + " " + lockMode + " page=" + acquirePageSize + " nodes=" + nodes + " threads=" + threads;
    }

    /** The same configuration with another number of jobs. */
    public Scenario withJobs(int otherJobs) {
        return new Scenario(kind, otherJobs, nodes, lockMode, acquirePageSize, threads, queueSize, timeout);
    }

    /** nodes x threads x (1000 / ms) jobs per second: every thread always busy. NaN for no-op kinds. */
    public double theoreticalMaxPerSecond() {
        return kind.sleepMillis() > 0 ? nodes * threads * (1000.0 / kind.sleepMillis()) : Double.NaN;
    }
}
