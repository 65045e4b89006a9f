package io.drover.operator.autoscaling;

import io.drover.contract.JobSchema;
import io.drover.contract.SettingDefaults;
import io.drover.operator.api.v1alpha1.AutoscalingSpec;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * KEDA's query built in memory, no apiserver: its predicates are the executor's (JobSchema),
 * its caps bound its cost, and docs/autoscaling.md shows the query the operator really writes.
 * That the ScaledObject carries it is tested against a real apiserver in
 * ExecutorClusterReconcilerTest.
 */
class BacklogQueryTest {
    @Test
    void countsWhatAcquisitionTakesThroughItsIndexUpToTheCap() {
        String sql = BacklogQuery.sql("payments", scaling(5, 500, 10), 8);
        String job = JobSchema.jobTable("payments");
        assertThat(sql).isEqualTo("select (select count(*) from (select 1 from " + job + " where " + JobSchema.DUE_AND_UNLOCKED
                + " limit 2501) as due) + (select coalesce(sum(least(n, 8)), 0) from (select count(*) as n from " + job
                + " where " + JobSchema.HELD + " group by locked_by) as held)");
    }

    @Test
    void theCapIsWhereKedasAnswerCanNoLongerChange() {
        assertThat(BacklogQuery.cap(scaling(5, 500, 10))).as("maxReplicas x targetBacklogPerNode + 1").isEqualTo(2501);
        assertThat(BacklogQuery.cap(scaling(1, 10, 100))).as("activationBacklog + 1 when larger").isEqualTo(101);
        assertThat(BacklogQuery.cap(scaling(1000, 1_000_000, 0))).as("no int overflow").isEqualTo(1_000_000_001L);
    }

    @Test
    void aClusterWithoutASchemaUsesTheExecutorsDefaultSchema() {
        assertThat(BacklogQuery.sql(null, scaling(1, 1, 0), 1)).contains(" from " + JobSchema.jobTable(SettingDefaults.SCHEMA) + " where ");
    }

    /** The page users read to understand their scaling shows this query, placeholders for the values. */
    @Test
    void docsShowTheQueryTheOperatorWrites() throws Exception {
        String doc = Files.readString(Path.of(System.getProperty("it.repo.root", "..")).resolve("docs/autoscaling.md"));
        Matcher block = Pattern.compile("```sql\\n(.*?)```", Pattern.DOTALL).matcher(doc);
        assertThat(block.find()).as("docs/autoscaling.md has the query in a sql block").isTrue();
        String shown = block.group(1).replaceAll("\\s+", " ").replace("( ", "(").trim();
        String written = BacklogQuery.sql("SCHEMA", scaling(1, 1, 0), 12345)
                .replace("SCHEMA.", "<schema>.").replace("limit 2)", "limit <cap>)").replace("12345", "<threads>");
        assertThat(shown).as("docs/autoscaling.md's query, whitespace aside").isEqualTo(written);
    }

    /**
     * A Flowable fleet is scaled on what Flowable's own acquisition takes (its Job.xml and
     * TimerJob.xml predicates, written out here: they are Flowable's, not ours): runnable jobs no
     * node holds, due timers no node holds, and the jobs nodes run.
     */
    @Test
    void aFlowableFleetCountsFlowablesJobsAndDueTimers() throws Exception {
        String sql = FlowableBacklogQuery.sql("bpm", scaling(5, 500, 10), 8);
        assertThat(sql).isEqualTo("select (select count(*) from (select 1 from bpm.act_ru_job where lock_exp_time_ is null"
                + " and scope_type_ is null limit 2501) as due)"
                + " + (select count(*) from (select 1 from bpm.act_ru_timer_job where duedate_ <= now()"
                + " and lock_owner_ is null and scope_type_ is null limit 2501) as timers)"
                + " + (select coalesce(sum(least(n, 8)), 0) from (select count(*) as n from (select lock_owner_ from"
                + " bpm.act_ru_job where lock_owner_ is not null and scope_type_ is null union all select lock_owner_ from"
                + " bpm.act_ru_timer_job where lock_owner_ is not null and scope_type_ is null) as locked group by lock_owner_)"
                + " as held)");
        String doc = Files.readString(Path.of(System.getProperty("it.repo.root", "..")).resolve("docs/engines.md"));
        Matcher block = Pattern.compile("```sql\\n(.*?)```", Pattern.DOTALL).matcher(doc);
        assertThat(block.find()).as("docs/engines.md has the query in a sql block").isTrue();
        String shown = block.group(1).replaceAll("\\s+", " ").trim();
        String written = FlowableBacklogQuery.sql("SCHEMA", scaling(1, 1, 0), 12345)
                .replace("SCHEMA.", "<schema>.").replace("limit 2)", "limit <cap>)").replace("12345", "<threads>");
        assertThat(shown).as("docs/engines.md's query, whitespace aside").isEqualTo(written);
    }

    private static AutoscalingSpec scaling(int maxReplicas, int targetBacklogPerNode, int activationBacklog) {
        AutoscalingSpec a = new AutoscalingSpec();
        a.maxReplicas = maxReplicas;
        a.targetBacklogPerNode = targetBacklogPerNode;
        a.activationBacklog = activationBacklog;
        return a;
    }
}
