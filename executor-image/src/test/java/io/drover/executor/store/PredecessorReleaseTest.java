package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A starting node releases the jobs of an earlier run of its name when that run's presence lock
 * is free, but only once the server has kept its sessions long enough for a live run's session
 * to have reconnected: right after the server lost them every presence lock is free, the live
 * ones too. The server's start time did not tell: crash recovery (a backend killed) and a standby
 * promoted after a failover end every session and keep pg_postmaster_start_time(), so a node that
 * started then released the running jobs of a live node of its name (twin clusters sharing a
 * schema, a pod force-deleted while its process ran on). Both empty an unlogged table, which is
 * what the truncate here does, on a real PostgreSQL that has been up for as long as the tests.
 */
class PredecessorReleaseTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    /** Long enough that "a moment ago" stays short of it under a loaded CI machine. */
    private static final Duration SETTLED = Duration.ofSeconds(5);

    @Test
    void aFreePresenceLockProvesNothingUntilTheServerHasKeptItsSessionsLongEnough() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        JobSql sql = new JobSql(new Tables(schema));
        LockMaintenance restarted = new LockMaintenance(sql, "node-0:2", "node-0", Duration.ofMinutes(10), 3);
        lockedBy(jobs, "node-0:1");

        assertThat(release(restarted)).as("no session has noted the server keeping its sessions: it may just have lost them")
                .singleElement().satisfies(p -> assertThat(p.released()).isNull())
                .satisfies(p -> assertThat(p.left()).contains("recovered from a crash or failed over"));
        note(sql);
        assertThat(release(restarted)).as("noted a moment ago").singleElement().satisfies(p -> assertThat(p.released()).isNull());
        Thread.sleep(SETTLED.toMillis() + 100);
        assertThat(release(restarted)).as("the sessions kept long enough: its free lock proves it gone").singleElement()
                .satisfies(p -> assertThat(p.released()).isNotNull());
        assertThat(jobs.count("select count(*) from {s}.job where locked_by is not null")).isZero();

        // Crash recovery or a promotion: the unlogged table is emptied. The server's start time stays.
        lockedBy(jobs, "node-0:3");
        jobs.execute("truncate {s}.server_epoch");
        assertThat(release(restarted)).singleElement().satisfies(p -> assertThat(p.released()).isNull());
        note(sql);
        assertThat(release(restarted)).as("the first session back noted it a moment ago").singleElement()
                .satisfies(p -> assertThat(p.released()).isNull());
        assertThat(jobs.count("select count(*) from {s}.job where locked_by = 'node-0:3'")).isEqualTo(1);
    }

    private static void lockedBy(Jobs jobs, String owner) throws Exception {
        jobs.enqueue(1, "any", "", 3);
        jobs.execute("update {s}.job set locked_by = '" + owner + "', lock_expires_at = now() + interval '10 minutes'"
                + " where id = (select max(id) from {s}.job)");
    }

    private static void note(JobSql sql) throws Exception {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate(sql.noteServerEpoch());
        }
    }

    private static List<LockMaintenance.Predecessor> release(LockMaintenance maintenance) throws Exception {
        try (Connection c = db.getConnection()) {
            return maintenance.releasePredecessors(c, SETTLED);
        }
    }
}
