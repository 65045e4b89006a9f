package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.JobStarts;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.DroppedConnection;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The starter on a real PostgreSQL, where its timing matters: a shutdown's interrupt during a start mark. */
class JobStarterTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private static final String OWNER = "node-a:boot-1";

    /**
     * A shutdown past its grace period interrupts a worker whose start mark is already being
     * written: the mark may still commit and charge the attempt. The worker used to give the job
     * back charging nothing back, so an attempt was spent on a run that never happened. Now it
     * waits for the batch's answer and gets it with the interrupt still set: it knows the mark
     * went in, runs nothing, and gives the charge back (WorkerPool).
     */
    @Test
    void aShutdownInterruptDuringTheMarkWaitsForItsAnswerAndKeepsTheInterrupt() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        long id = heldSuspect(jobs);
        HeldJobs held = new HeldJobs(Duration.ofMinutes(1).toNanos());
        HeldJobs.Lease lease = lease(held, id);
        JobStarter starter = starter(db, new JobSql(new Tables(schema)), held);
        AtomicReference<Object> answer = new AtomicReference<>();
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        try (Connection blocker = db.getConnection(); Statement s = blocker.createStatement()) {
            // The row is locked by another transaction: the mark's UPDATE waits on it, in its batch.
            blocker.setAutoCommit(false);
            s.execute("select id from " + schema + ".job where id = " + id + " for update");
            Thread worker = Thread.ofPlatform().start(() -> {
                try {
                    answer.set(starter.start(lease, true));
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                } catch (Throwable t) {
                    answer.set(t);
                }
            });
            Jobs.await("the mark waits on the row", Duration.ofSeconds(10), () -> jobs.count(
                    "select count(*) from pg_stat_activity where wait_event_type = 'Lock' and query like '%set attempts%'") > 0);
            worker.interrupt();
            Thread.sleep(300);
            assertThat(worker.isAlive()).as("waits for the batch's answer rather than leaving at once").isTrue();
            blocker.commit();
            worker.join(Duration.ofSeconds(10));
        } finally {
            starter.stop(java.time.Duration.ofSeconds(10));
        }
        assertThat(answer.get()).as("the mark's answer").isInstanceOf(JobStarts.Started.class);
        assertThat(stillInterrupted).as("the interrupt is kept for the worker").isTrue();
        assertThat(jobs.count("select attempts from {s}.job where id = " + id))
                .as("the mark charged the attempt: the worker gives it back").isEqualTo(1);
    }

    /**
     * A mark's COMMIT goes in but its answer is lost, and the node stops while the starter backs
     * off: the mark may have gone in, so the answer is neither a start (the job must not run) nor
     * "not held" (the worker would drop the job, and its lapsed lock with the mark in it would be
     * counted as a crash): it is {@link JobStarter#FATE_UNKNOWN}, for the worker to hand the job
     * back with the charge given back.
     */
    @Test
    void aStopWhileAMarksAnswerIsLostAnswersThatItsFateIsUnknown() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        long id = heldSuspect(jobs);
        HeldJobs held = new HeldJobs(Duration.ofMinutes(1).toNanos());
        HeldJobs.Lease lease = lease(held, id);
        JobSql sql = new JobSql(new Tables(schema));
        DroppedConnection network = DroppedConnection.afterCommit(db, sql.markStarted());
        JobStarter starter = starter(network, sql, held);
        AtomicReference<Object> answer = new AtomicReference<>();
        Thread worker = Thread.ofPlatform().start(() -> {
            try {
                answer.set(starter.start(lease, true));
            } catch (Throwable t) {
                answer.set(t);
            }
        });
        assertThat(network.awaitDropped(Duration.ofSeconds(10))).as("the mark committed, its answer lost").isTrue();
        Thread.sleep(300); // the starter backs off, the database away
        starter.stop(Duration.ofSeconds(10));
        worker.join(Duration.ofSeconds(10));
        assertThat(answer.get()).as("the answer").isSameAs(JobStarter.FATE_UNKNOWN);
        assertThat(jobs.count("select attempts from {s}.job where id = " + id)).as("the mark went in").isEqualTo(1);
    }

    /** A suspect locked by {@link #OWNER} for a minute; returns its id. */
    private static long heldSuspect(Jobs jobs) {
        jobs.execute("insert into {s}.job (type, payload, suspect, locked_by, lock_expires_at)"
                + " values ('noop', '', true, '" + OWNER + "', now() + interval '1 minute')");
        return jobs.count("select max(id) from {s}.job");
    }

    /** The job's lease, as its acquisition (version 1) left it. */
    private static HeldJobs.Lease lease(HeldJobs held, long id) {
        return held.acquired(List.of(new AcquiredJob(id, 1, "noop", "", 0, 3, Instant.now(), null, 0, 0, 0, true)),
                System.nanoTime()).getFirst();
    }

    /** A started starter for {@link #OWNER} over the given data source. */
    private static JobStarter starter(javax.sql.DataSource dataSource, JobSql sql, HeldJobs held) {
        JobStarter starter = new JobStarter(dataSource, new JobStarts(sql, OWNER, Duration.ofMinutes(1)), held,
                new DatabaseHealth(), new Heartbeats(), 1000, "node-a");
        starter.start();
        return starter;
    }
}
