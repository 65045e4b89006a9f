package io.drover.executor.acquire;

/**
 * How executor nodes coordinate when they take due jobs. The names are the values users write
 * in the ExecutorCluster resource, the Helm values and the executor's {@code lockMode} setting.
 */
public enum LockMode {
    /** One node at a time holds a global acquire lock while it locks a page; no row contention. */
    Global,
    /** Every node selects the same candidates and locks each with a version check; losers retry. */
    Optimistic,
    /** One statement per page with FOR UPDATE SKIP LOCKED; nodes skip each other's rows. */
    SkipLocked;

    public static LockMode parse(String value) {
        for (LockMode mode : values()) {
            if (mode.name().equalsIgnoreCase(value)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("lockMode must be one of Global, Optimistic, SkipLocked, got '" + value + "'");
    }
}
