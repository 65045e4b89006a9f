package io.drover.contract;

/**
 * What the Flowable engine's database pool must hold, spelled once for the operator (the CRD's
 * rule on database.maxPoolSize and the pool size it sets when none is given) and the Flowable
 * executor (its start-up check). Flowable runs each job in a transaction on a connection of the
 * node's one pool, for the job's whole run, so a pool smaller than its threads makes jobs wait for
 * a connection, time out and fail.
 */
public final class FlowablePool {
    /**
     * Connections beyond one per worker thread: Flowable's job and timer acquisition, its 4
     * timer-move threads, the expired-lock reset, the node's lock renewal and health check.
     */
    public static final int SPARE_CONNECTIONS = 8;

    private FlowablePool() {
    }

    /** The smallest pool a Flowable node with {@code threads} workers may run with. */
    public static int minimumFor(int threads) {
        return threads + SPARE_CONNECTIONS;
    }
}
