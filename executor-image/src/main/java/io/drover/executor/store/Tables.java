package io.drover.executor.store;

import io.drover.contract.JobSchema;

/**
 * Schema-qualified table names. Statements name the schema explicitly rather than relying on
 * the connection's search_path, so a pooled connection shared with user code cannot redirect
 * them, and several executor clusters can share one database in different schemas.
 */
public record Tables(String schema) {
    public String job() {
        return JobSchema.jobTable(schema);
    }

    public String deadLetter() {
        return schema + ".dead_letter";
    }

    /** One row: the gauges' figures, counted by one node for all (V5). */
    public String fleetFigures() {
        return schema + ".fleet_figures";
    }

    /** The idempotency keys of enqueue calls (V7). */
    public String enqueueKey() {
        return schema + ".enqueue_key";
    }

    /** When the server last lost its sessions, as far as the nodes know (unlogged: V10). */
    public String serverEpoch() {
        return schema + ".server_epoch";
    }

    /** The LISTEN/NOTIFY channel on which new and released jobs are announced. */
    public String channel() {
        return "drover_" + schema;
    }
}
