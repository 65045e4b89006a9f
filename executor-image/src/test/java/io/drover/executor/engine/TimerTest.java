package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.store.JobEnqueuer;
import io.drover.executor.store.JobEnqueuer.NewJob;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.RecordingHandler;
import io.drover.executor.testing.TestDatabase;
import io.drover.executor.testing.TestNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Timers never fire early and fire within a bounded delay (acquireInterval) after they are due. */
class TimerTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @Test
    void timersFireOnTimeNeverEarly() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s.acquireInterval(Duration.ofSeconds(1)),
                List.of(new RecordingHandler(db, schema, "in-jvm")))) {
            Instant now = Instant.now();
            List<NewJob> timers = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                timers.add(new NewJob(RecordingHandler.TYPE, "", now.plusMillis(500 + 75L * i), 3, null));
            }
            new JobEnqueuer(db, new Tables(schema)).enqueue(timers);
            Jobs.await("all timers fired", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
        }
        assertThat(jobs.executions()).isEqualTo(40);
        assertThat(jobs.count("select count(*) from {s}.test_execution where executed_at < due_at"))
                .as("timers fired before their due time").isZero();
        // Bound: the acquirer sleeps at most acquireInterval (1 s) when idle, and less when it
        // knows the next timer is due sooner. 1.5 s leaves room for a loaded CI machine.
        assertThat(jobs.count("select (extract(epoch from max(executed_at - due_at)) * 1000)::bigint"
                + " from {s}.test_execution")).as("worst delay after due time, ms").isLessThan(1500);
    }

    @Test
    void recurringTimerFiresOncePerSlot() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        Instant first = Instant.now().plusMillis(300);
        try (ExecutorEngine engine = TestNode.start(db, schema, s -> s,
                List.of(new RecordingHandler(db, schema, "in-jvm")))) {
            new JobEnqueuer(db, new Tables(schema))
                    .enqueue(List.of(new NewJob(RecordingHandler.TYPE, "", first, 3, Duration.ofSeconds(1))));
            Jobs.await("three slots fired", Duration.ofSeconds(30), () -> jobs.executions() >= 3);
        }
        assertThat(jobs.count("select count(*) from {s}.test_execution where executed_at < due_at")).isZero();
        assertThat(jobs.count("select count(distinct due_at) from {s}.test_execution"))
                .as("each execution is a different slot").isEqualTo(jobs.executions());
        // Slots stay on the timer's grid: first + n seconds.
        assertThat(jobs.count("select count(*) from {s}.test_execution t, {s}.job j"
                + " where (extract(epoch from (t.due_at - j.due_at)) * 1000)::bigint % 1000 <> 0"))
                .as("executions off the 1 s grid").isZero();
        assertThat(jobs.jobsLeft()).as("the recurring timer stays scheduled").isEqualTo(1);
        assertThat(jobs.count("select count(*) from {s}.job where locked_by is null and attempts = 0"))
                .isEqualTo(1);
    }
}
