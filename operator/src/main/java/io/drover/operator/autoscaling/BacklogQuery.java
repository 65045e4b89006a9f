package io.drover.operator.autoscaling;

import io.drover.operator.api.v1alpha1.AutoscalingSpec;

/**
 * The SQL KEDA runs every pollingInterval: due, unlocked jobs, counted up to a cap. The cap
 * keeps the cost bounded on a table with millions of due rows: the scan stops after
 * {@code cap} entries of the partial index job_acquire_idx (due_at, id) WHERE locked_by IS NULL
 * (executor migration V3), the same index acquisition walks. Counting past
 * maxReplicas x targetBacklogPerNode would not change KEDA's decision, so nothing is lost.
 */
public final class BacklogQuery {
    private BacklogQuery() {
    }

    public static long cap(AutoscalingSpec a) {
        long scaleCap = (long) a.maxReplicas * a.targetBacklogPerNode;
        return Math.max(scaleCap, a.activationBacklog) + 1;
    }

    public static String sql(String schema, AutoscalingSpec a) {
        String s = schema == null ? "drover" : schema;
        return "select count(*) from (select 1 from " + s + ".job where locked_by is null and due_at <= now() limit "
                + cap(a) + ") as due";
    }
}
