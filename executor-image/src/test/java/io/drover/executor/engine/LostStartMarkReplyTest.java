package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.handler.JobContext;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.DroppedConnection;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import io.drover.executor.testing.TestNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A suspect's start mark is sent, the connection drops at its COMMIT, and the database stays away
 * past the job's lease: the node cannot tell whether the mark went in, and must not run the job
 * (its lease ran out). It used to take that for "the lock is gone" and drop the job; a mark that
 * had gone in stayed in the row with its charged attempt, and the sweep counted a crash that
 * never happened, and with maxCrashes reached moved the job to dead letters as poison, though it
 * never ran. Now the node hands the job back in its tenure, giving back the mark's charge if the
 * mark is there, and keeps the row held until then: released as a stray meanwhile (a mark that
 * had not gone in), the hand-back could find the row changed and count a lost lock, the alert
 * that says jobs may have run twice (whether it does here depends on which thread the database
 * answers first; HeldJobsTest holds the lease in place).
 */
class LostStartMarkReplyTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private static final Duration LOCK_EXPIRY = Duration.ofSeconds(8);

    @ParameterizedTest(name = "the server had committed the mark: {0}")
    @ValueSource(booleans = {true, false})
    void aStartMarkWhoseFateIsUnknownPastTheLeaseIsHandedBackNotCountedAsACrash(boolean committed) throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        // A suspect (a node died holding it once, without running it): it runs watched, with a mark.
        jobs.execute("insert into {s}.job (type, payload, suspect) values ('counted', '', true)");
        String mark = new JobSql(new Tables(schema)).markStarted();
        DroppedConnection network = committed ? DroppedConnection.afterCommit(db, mark) : DroppedConnection.beforeCommit(db, mark);
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
        var registry = new SimpleMeterRegistry();
        // maxCrashes 1: one crash counted would make the job poison.
        try (ExecutorEngine engine = TestNode.start(network, schema, s -> s.threads(1).maxCrashes(1)
                .lockExpiry(LOCK_EXPIRY).acquireInterval(Duration.ofMillis(50)), List.of(counted), registry)) {
            assertThat(network.awaitDropped(Duration.ofSeconds(30))).as("the connection dropped at the mark's COMMIT").isTrue();
            assertThat(jobs.count("select count(*) from {s}.job where started_at is not null and attempts = 1"))
                    .as("the mark in the row").isEqualTo(committed ? 1 : 0);
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
        assertThat(attempt.get()).as("the run's attempt: a lost mark's charge was given back").isEqualTo(1);
        assertThat(registry.get("drover.locks.lost").counter().count()).as("locks counted lost").isZero();
    }
}
