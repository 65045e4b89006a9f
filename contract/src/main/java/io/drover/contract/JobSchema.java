package io.drover.contract;

/**
 * The names and predicates of the job table that more than one program must spell the same
 * way. The executor's acquisition takes "unlocked and due, oldest first" by walking the partial
 * index {@link #ACQUIRE_INDEX}; the operator's KEDA query counts the same rows through the same
 * index, so that it scales for exactly the work acquisition would take, at the same bounded
 * cost. A statement reaches the index only while its predicate implies the index's, so each is
 * written once, here, beside the index's definition (executor migration
 * {@code V3__acquire_index_fifo.sql}, which a test of the executor checks against these).
 *
 * <p>It is its own module, with no dependencies, because the operator must not copy the
 * predicate (the copies drift apart silently: a query that no longer matches the index still
 * answers, only slowly) and must not depend on the executor, a Quarkus application with its
 * engine, database driver and web stack.
 */
public final class JobSchema {
    /** The job table, unqualified (migrations run in the cluster's schema: see {@link #jobTable}). */
    public static final String JOB_TABLE = "job";

    /** The partial index acquisition walks in order (migration V3). */
    public static final String ACQUIRE_INDEX = "job_acquire_idx";

    /**
     * The key of {@link #ACQUIRE_INDEX}, in order, and so the order acquisition takes jobs in:
     * oldest due first, and first-in first-out among jobs due at the same instant.
     */
    public static final String ACQUIRE_ORDER = "due_at, id";

    /** The predicate {@link #ACQUIRE_INDEX} is partial on: rows no node holds. */
    public static final String UNLOCKED = "locked_by is null";

    /**
     * Due and unlocked, {@code locked_by is null and due_at <= now()}: the jobs acquisition takes.
     * Must match the partial index job_acquire_idx of migration V3: it is {@link #UNLOCKED} (the
     * index's predicate, so PostgreSQL can prove the index applies) narrowed to a range of the
     * index's first key.
     */
    public static final String DUE_AND_UNLOCKED = UNLOCKED + " and due_at <= now()";

    /** Held by a node (queued, running or completing there); the partial predicate of job_lock_expiry_idx (V1). */
    public static final String HELD = "locked_by is not null";

    private JobSchema() {
    }

    /**
     * The job table qualified with its schema. Statements name the schema rather than rely on a
     * connection's search_path, which a pooled connection shares with other code.
     */
    public static String jobTable(String schema) {
        return schema + "." + JOB_TABLE;
    }
}
