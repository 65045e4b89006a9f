package io.drover.executor.store;

/**
 * Proof of life for executor nodes: every node holds a session-level advisory lock keyed on
 * its lock owner id for as long as its session connection lives (the engine's NodeSession).
 * The server frees it the moment that session ends: the process died, or its connection did.
 * Before a node releases another owner's rows without waiting for their locks to expire (an
 * earlier run of its own name), it takes that owner's key: if it can, nobody holds it, and the
 * owner is gone. A live node with the same name (two clusters sharing a schema, a pod force-
 * deleted while its process still runs, an env override) keeps its key and keeps its jobs.
 */
public final class NodePresence {
    private NodePresence() {
    }

    /** The advisory lock key of a lock owner in a schema. */
    public static long key(String schema, String owner) {
        return AdvisoryKeys.of("drover.node-presence:" + schema + ":" + owner);
    }
}
