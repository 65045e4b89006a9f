package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.handler.JobContext;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.CommitReplyLost;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import io.drover.executor.testing.TestNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A suspect's start mark commits, its answer is lost, and the database stays away past the job's
 * lease. The node cannot tell whether the mark went in, and must not run the job (its lease ran
 * out). It used to take that for "the lock is gone" and drop the job, so the row kept its start
 * mark and charged attempt: the sweep counted a crash that never happened, and with maxCrashes
 * reached moved the job to dead letters as poison, though it never ran. Now the node hands the
 * job back, giving back the mark's charge if the mark is there, in the job's tenure.
 */
class LostStartMarkReplyTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private static final Duration LOCK_EXPIRY = Duration.ofSeconds(8);

    @Test
    void aStartMarkWhoseAnswerIsLostPastTheLeaseIsGivenBackNotCountedAsACrash() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        // A suspect (a node died holding it once, without running it): it runs watched, with a mark.
        jobs.execute("insert into {s}.job (type, payload, suspect) values ('counted', '', true)");
        CommitReplyLost network = new CommitReplyLost(db, new JobSql(new Tables(schema)).markStarted());
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger attempt = new AtomicInteger();
        JobHandler counted = new JobHandler() {
            public String type() {
                return "counted";
            }

            public void execute(JobContext job) {
                runs.incrementAndGet();
                attempt.set(job.attempt());
            }
        };
        // maxCrashes 1: one crash counted would make the job poison.
        try (ExecutorEngine engine = TestNode.start(network, schema, s -> s.threads(1).maxCrashes(1)
                .lockExpiry(LOCK_EXPIRY).acquireInterval(Duration.ofMillis(50)), List.of(counted))) {
            assertThat(network.awaitReplyLost(Duration.ofSeconds(30))).as("the mark committed, its answer lost").isTrue();
            assertThat(jobs.count("select count(*) from {s}.job where started_at is not null and attempts = 1"))
                    .as("the mark is in the row").isEqualTo(1);
            // Away past the lease (7/8 of the lock expiry, from before the mark) and the starter's
            // next try (at most a renewal interval, a quarter of the expiry, later): it has given up.
            Thread.sleep(LOCK_EXPIRY.toMillis() * 7 / 8 + LOCK_EXPIRY.toMillis() / 4 + 500);
            assertThat(runs.get()).as("not run while its mark's fate was unknown").isZero();
            network.reconnect();
            Jobs.await("the job done or dead-lettered", Duration.ofSeconds(60), () -> jobs.jobsLeft() == 0);
            Jobs.await("nothing held", Duration.ofSeconds(10), () -> engine.heldJobs() == 0);
        }
        assertThat(jobs.deadLetters()).as("dead-lettered as poison though it never ran").isZero();
        assertThat(runs.get()).as("runs").isEqualTo(1);
        assertThat(attempt.get()).as("the run's attempt: the lost mark's charge was given back").isEqualTo(1);
    }
}
