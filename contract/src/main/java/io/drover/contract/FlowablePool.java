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
     * Connections beyond one per worker thread, one for each other thread that may hold one at the
     * same time: Flowable's job acquisition (1) and timer acquisition (1), its timer-move threads
     * (4, Flowable's default, which the node keeps), the expired-lock reset (1), the node's lock
     * renewal (1) and its readiness check (1).
     */
    public static final int SPARE_CONNECTIONS = 9;

    private FlowablePool() {
    }

    /** The smallest pool a Flowable node with {@code threads} workers may run with. */
    public static int minimumFor(int threads) {
        return threads + SPARE_CONNECTIONS;
    }
}
