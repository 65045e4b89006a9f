package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.store.PooledDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.RecordingHandler;
import io.drover.executor.testing.TestDatabase;
import io.drover.executor.testing.TestNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An acquisition that a stalled server runs after its node gave up on it locks a page for a node
 * that never got the answer. The node releases those rows once the session that ran the request
 * has ended, instead of leaving them locked for {@code lockExpiry} and a sweep.
 *
 * <p>The stall is an advisory lock held by the test, which a trigger on the job table waits for
 * while a switch row exists (as in {@code LateStatementsTest}). The node's connections give up
 * after a second and, unlike the engine's own pool, set no statement timeout on the server, so
 * the stalled statement runs on, as in a frozen server, where the statement timeout only starts
 * when the server reads the request.
 */
class UnansweredAcquisitionsTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private static final long STALL = 7_700_002;

    @Test
    void jobsAnAcquisitionLockedAfterItsNodeGaveUpAreReleasedOnceItsSessionEnded() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(20, RecordingHandler.TYPE, "", 3);
        jobs.execute("create table {s}.stalling (on_ boolean)");
        jobs.execute("insert into {s}.stalling values (true)");
        jobs.execute("create function {s}.stall() returns trigger language plpgsql as $$ begin"
                + " if exists (select 1 from {s}.stalling) then perform pg_advisory_lock(" + STALL + ");"
                + " perform pg_advisory_unlock(" + STALL + "); end if; return new; end $$");
        jobs.execute("create trigger stall before update on {s}.job for each row execute function {s}.stall()");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        String url = TestDatabase.jdbcUrl();
        try (AgroalDataSource oneSecond = PooledDataSource.create(url + (url.contains("?") ? "&" : "?")
                + "socketTimeout=1", "postgres", "postgres", 10);
             Connection stall = DriverManager.getConnection(url, "postgres", "postgres")) {
            try (Statement st = stall.createStatement()) {
                st.execute("select pg_advisory_lock(" + STALL + ")");
            }
            // lockExpiry 60 s: without the release, the late page would wait a minute for a sweep.
            try (var ignored = TestNode.start(oneSecond, schema, s -> s.threads(4).lockExpiry(Duration.ofSeconds(60)),
                    List.of(new RecordingHandler(db, schema, "in-jvm")), registry)) {
                Jobs.await("an acquisition given up while the server runs it", Duration.ofSeconds(30),
                        () -> registry.counter("drover.acquisition.errors").count() >= 1
                                && jobs.count("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                                + " and wait_event = 'advisory' and query like '%" + schema + ".job%'") >= 1);
                jobs.execute("delete from {s}.stalling");
                try (Statement st = stall.createStatement()) {
                    st.execute("select pg_advisory_unlock(" + STALL + ")"); // the server runs the late requests
                }
                Jobs.await("every job run", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);
            }
        }
        assertThat(jobs.executions()).as("runs").isEqualTo(20);
        assertThat(jobs.distinctExecuted()).as("jobs run").isEqualTo(20);
    }
}
