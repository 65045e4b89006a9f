package io.drover.operator.autoscaling;

import io.drover.contract.SettingDefaults;
import io.drover.operator.api.v1alpha1.AutoscalingSpec;

/**
 * KEDA's query for a Flowable fleet (spec.engine Flowable): the work Flowable's acquisition
 * would take now, plus the jobs nodes are running, by the same rules as {@link BacklogQuery}:
 * each part capped, running jobs counted per node up to {@code threads}.
 *
 * <p>The predicates are Flowable's own acquisition's (its Job.xml and TimerJob.xml mappings):
 * <ul>
 * <li>jobs: {@code act_ru_job} rows no node holds ({@code lock_exp_time_ is null}) of the
 * process engine ({@code scope_type_ is null}); every row of that table is runnable at once, it
 * has no due time to wait for. Flowable has no index for it: the count is a sequential scan that
 * stops at the cap, cheap while unlocked rows are many, at most one pass over the table
 * (backlog plus jobs in flight) when they are few.
 * <li>due timers: {@code act_ru_timer_job} rows due and not held, through Flowable's
 * {@code act_idx_timer_job_duedate}, up to the cap: due timers are work a node would move into
 * the job table and run.
 * <li>running: {@code act_ru_job} rows a node holds, and {@code act_ru_timer_job} rows a node
 * holds while it moves them into the job table, per owner up to {@code threads}; a node's
 * queued jobs are held too but a new node could not take them. A timer held by a node that went
 * away (Flowable does not wait for its timer moves as it stops) is neither due nor a job: counted
 * here, it wakes a fleet scaled to zero, whose expired-lock sweep then frees it.
 * </ul>
 */
public final class FlowableBacklogQuery {
    private FlowableBacklogQuery() {
    }

    public static String sql(String schema, AutoscalingSpec a, int threads) {
        String s = schema == null ? SettingDefaults.SCHEMA : schema;
        long cap = BacklogQuery.cap(a);
        return "select (select count(*) from (select 1 from " + s + ".act_ru_job where lock_exp_time_ is null"
                + " and scope_type_ is null limit " + cap + ") as due)"
                + " + (select count(*) from (select 1 from " + s + ".act_ru_timer_job where duedate_ <= now()"
                + " and lock_owner_ is null and scope_type_ is null limit " + cap + ") as timers)"
                + " + (" + runningSql(schema, threads) + ")";
    }

    /** The jobs Flowable nodes run, for the second trigger ({@link BacklogQuery#runningSql}). */
    public static String runningSql(String schema, int threads) {
        String s = schema == null ? SettingDefaults.SCHEMA : schema;
        return "select coalesce(sum(least(n, " + threads + ")), 0) from (select count(*) as n from (select lock_owner_ from "
                + s + ".act_ru_job where lock_owner_ is not null and scope_type_ is null union all select lock_owner_ from "
                + s + ".act_ru_timer_job where lock_owner_ is not null and scope_type_ is null) as locked group by lock_owner_)"
                + " as held";
    }
}
