package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.handler.JobContext;
import io.drover.executor.handler.JobHandler;
import io.drover.executor.store.PooledDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.RecordingHandler;
import io.drover.executor.testing.TestDatabase;
import io.drover.executor.testing.TestNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rows locked for a node that no longer holds them are released for any node to take, instead
 * of waiting for their lock to expire and a sweep: the page of an acquisition that the server
 * ran after the node gave up on it, and queued jobs the node dropped when their lease ran out.
 *
 * <p>The server's stall is an advisory lock held by the test, which a trigger on the job table
 * waits for while a switch row exists (as in {@code LateStatementsTest}). The node's connections
 * give up after a second and, unlike the engine's own pool, set no statement timeout on the
 * server, so a stalled statement runs on afterwards, as in a frozen server, where the statement
 * timeout only starts when the server reads the request.
 */
class StrayLocksTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private static final long STALL = 7_700_002;

    @Test
    void jobsAnAcquisitionLockedAfterItsNodeGaveUpAreReleasedOnceItsSessionEnded() throws Exception {
        Jobs jobs = new Jobs(db, TestDatabase.freshSchema(db));
        jobs.enqueue(20, RecordingHandler.TYPE, "", 3);
        stallUpdates(jobs, "true");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (AgroalDataSource oneSecond = oneSecondPool();
             Connection stall = holdStall()) {
            // lockExpiry 60 s: without the release, the late page would wait a minute for a sweep.
            try (var ignored = TestNode.start(oneSecond, jobs.schema(), s -> s.threads(4).lockExpiry(Duration.ofSeconds(60)),
                    List.of(new RecordingHandler(db, jobs.schema(), "in-jvm")), registry)) {
                Jobs.await("an acquisition given up while the server runs it", Duration.ofSeconds(30),
                        () -> registry.counter("drover.acquisition.errors").count() >= 1 && stalled(jobs) >= 1);
                endStall(jobs, stall);
                Jobs.await("every job run", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
            }
        }
        assertThat(jobs.executions()).as("runs").isEqualTo(20);
        assertThat(jobs.distinctExecuted()).as("jobs run").isEqualTo(20);
    }

    /**
     * Renewals stall past the leases: the node drops its queued jobs unstarted. When the server
     * resumes, the stalled renewals run late and extend those rows' locks by a lockExpiry; the
     * node releases them at its next acquisition, and runs them at once.
     */
    @Test
    void queuedJobsDroppedWhenTheirLeaseRanOutAreReleasedWhenTheDatabaseAnswersAgain() throws Exception {
        Jobs jobs = new Jobs(db, TestDatabase.freshSchema(db));
        jobs.enqueue(6, "gated", "", 3);
        // Renewals only: the row stays this node's and only its expiry moves.
        stallUpdates(jobs, "old.locked_by is not null and new.locked_by = old.locked_by"
                + " and new.lock_expires_at is distinct from old.lock_expires_at");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CountDownLatch gate = new CountDownLatch(1);
        ConcurrentHashMap<Long, Integer> runs = new ConcurrentHashMap<>();
        JobHandler gated = new JobHandler() {
            public String type() {
                return "gated";
            }

            public void execute(JobContext job) throws InterruptedException {
                runs.merge(job.id(), 1, Integer::sum);
                gate.await();
            }
        };
        Duration lockExpiry = Duration.ofSeconds(12);
        try (AgroalDataSource oneSecond = oneSecondPool();
             Connection stall = holdStall()) {
            // One worker: the first job runs (held at the gate), the other five wait in the queue.
            try (var ignored = TestNode.start(oneSecond, jobs.schema(), s -> s.threads(1).lockExpiry(lockExpiry),
                    List.of(gated), registry)) {
                Jobs.await("one running", Duration.ofSeconds(30), () -> runs.size() == 1);
                Jobs.await("the five queued jobs dropped as their leases ran out", Duration.ofSeconds(60),
                        () -> registry.counter("drover.jobs.not.started").count() >= 5);
                long resumed = System.nanoTime();
                endStall(jobs, stall);
                gate.countDown();
                Jobs.await("every job run", Duration.ofSeconds(60), () -> jobs.jobsLeft() == 0);
                assertThat(Duration.ofNanos(System.nanoTime() - resumed))
                        .as("run before the locks the late renewals extended could expire")
                        .isLessThan(lockExpiry.dividedBy(2));
            }
        }
        assertThat(runs).as("runs per job").hasSize(6).allSatisfy((id, n) -> assertThat(n).isEqualTo(1));
    }

    /** From now on, updates of job rows that match {@code when} wait for the advisory lock the test holds. */
    private static void stallUpdates(Jobs jobs, String when) {
        jobs.execute("create table {s}.stalling (on_ boolean)");
        jobs.execute("insert into {s}.stalling values (true)");
        jobs.execute("create function {s}.stall() returns trigger language plpgsql as $$ begin"
                + " if (" + when + ") and exists (select 1 from {s}.stalling) then perform pg_advisory_lock(" + STALL + ");"
                + " perform pg_advisory_unlock(" + STALL + "); end if; return new; end $$");
        jobs.execute("create trigger stall before update on {s}.job for each row execute function {s}.stall()");
    }

    private static Connection holdStall() throws SQLException {
        Connection stall = DriverManager.getConnection(TestDatabase.jdbcUrl(), "postgres", "postgres");
        try (Statement st = stall.createStatement()) {
            st.execute("select pg_advisory_lock(" + STALL + ")");
        }
        return stall;
    }

    /** The server resumes: no more stalls, and the stalled statements run on, their clients long gone. */
    private static void endStall(Jobs jobs, Connection stall) throws SQLException {
        jobs.execute("delete from {s}.stalling");
        try (Statement st = stall.createStatement()) {
            st.execute("select pg_advisory_unlock(" + STALL + ")");
        }
    }

    private static long stalled(Jobs jobs) {
        return jobs.count("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                + " and wait_event = 'advisory' and query like '%" + jobs.schema() + ".job%'");
    }

    /** Connections that give up on a call after a second, with no statement timeout on the server. */
    private static AgroalDataSource oneSecondPool() {
        String url = TestDatabase.jdbcUrl();
        return PooledDataSource.create(url + (url.contains("?") ? "&" : "?") + "socketTimeout=1", "postgres", "postgres", 10);
    }
}
