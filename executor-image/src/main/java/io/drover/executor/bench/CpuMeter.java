package io.drover.executor.bench;

/**
 * CPU time used so far by the processes a run measures, read at the start and at the end of the
 * drain. Only a run on the same machine as the executor nodes and PostgreSQL can read them (the
 * bench module reads /proc); a run against a fleet elsewhere has {@link #NONE} and takes the
 * nodes' CPU from their metrics instead.
 */
public interface CpuMeter {
    /** Sees nothing: every figure NaN. */
    CpuMeter NONE = watcher -> new Reading(Double.NaN, Double.NaN, Double.NaN);

    /**
     * @param watcherBackend the database backend (pid) of the benchmark's own watching
     *                       connection, whose CPU the database figure leaves out
     */
    Reading read(long watcherBackend) throws Exception;

    /**
     * CPU microseconds so far of the executor nodes (all threads), of their JIT compiler threads
     * among them (most of a young node's CPU: docs/benchmarks/profile.md), and of the database
     * server; NaN where not seen.
     */
    record Reading(double executorMicros, double executorJitMicros, double databaseMicros) {
        Reading since(Reading start) {
            return new Reading(executorMicros - start.executorMicros, executorJitMicros - start.executorJitMicros,
                    databaseMicros - start.databaseMicros);
        }
    }
}
