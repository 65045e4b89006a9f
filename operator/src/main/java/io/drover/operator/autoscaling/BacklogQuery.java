package io.drover.operator.autoscaling;

import io.drover.operator.api.v1alpha1.AutoscalingSpec;
import io.drover.contract.JobSchema;
import io.drover.contract.SettingDefaults;

/**
 * The SQL KEDA runs every pollingInterval: the jobs due that no node holds yet, plus the jobs
 * nodes are running, each part counted up to a cap.
 *
 * <p>Counting running jobs keeps a fleet busy with long jobs from being scaled down under them
 * while the backlog is empty. The database cannot tell a running job from one queued on its
 * node, so held jobs are counted per node up to {@code threads} (a node runs at most that many):
 * queued ones must not count, as a new node could not take them (they are already held).
 *
 * <p>The caps keep the cost bounded on a table with millions of due rows: the due scan stops
 * after {@code cap} entries of the partial index job_acquire_idx (due_at, id) WHERE locked_by IS
 * NULL (executor migration V3), the one acquisition walks; held rows are read from the partial
 * index job_lock_expiry_idx, whose size is what the fleet holds. Counting past maxReplicas x
 * targetBacklogPerNode would not change KEDA's decision.
 *
 * <p>Both predicates are the executor's own ({@link JobSchema}), not copies: a query that
 * drifted from the index would still answer, only by scanning the table on every poll.
 */
public final class BacklogQuery {
    private BacklogQuery() {
    }

    public static long cap(AutoscalingSpec a) {
        long scaleCap = (long) a.maxReplicas * a.targetBacklogPerNode;
        return Math.max(scaleCap, a.activationBacklog) + 1;
    }

    public static String sql(String schema, AutoscalingSpec a, int threads) {
        String job = JobSchema.jobTable(schema == null ? SettingDefaults.SCHEMA : schema);
        long cap = cap(a);
        return "select (select count(*) from (select 1 from " + job + " where " + JobSchema.DUE_AND_UNLOCKED
                + " limit " + cap + ") as due) + (" + running(job, threads) + ")";
    }

    /**
     * The jobs nodes run, for the second trigger (target: {@code threads} per node): in the
     * backlog's sum above they are divided by targetBacklogPerNode, so four nodes each running
     * eight long jobs counted for one node of 1024, and the fleet was scaled down under them.
     */
    public static String runningSql(String schema, int threads) {
        return running(JobSchema.jobTable(schema == null ? SettingDefaults.SCHEMA : schema), threads);
    }

    private static String running(String job, int threads) {
        return "select coalesce(sum(least(n, " + threads + ")), 0) from"
                + " (select count(*) as n from " + job + " where " + JobSchema.HELD + " group by locked_by) as held";
    }
}
