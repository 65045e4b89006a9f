package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node's sweep never recovers the jobs it holds, however long their locks have expired (a
 * database outage longer than lockExpiry: its renewals failed, its jobs still run): recovered,
 * they would run a second time beside the first on whichever node took them. The engine's test
 * of this (EngineReliabilityTest) ends before its first sweep; this calls the sweep itself.
 */
class SweepSparesHeldJobsTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();

    @Test
    void aSweepLeavesTheExpiredLocksOfTheJobsItsNodeHolds() throws Exception {
        Jobs jobs = new Jobs(db, TestDatabase.freshSchema(db));
        jobs.enqueue(4, "any", "", 3);
        jobs.execute("update {s}.job set locked_by = 'node-0:1', lock_expires_at = now() - interval '1 minute',"
                + " started_at = now() - interval '2 minutes', attempts = 1");
        long first = jobs.count("select min(id) from {s}.job");
        List<Long> held = List.of(first, first + 1);
        LockMaintenance maintenance = new LockMaintenance(new JobSql(new Tables(jobs.schema())), "node-0:1", "node-0",
                Duration.ofSeconds(10), 3);
        try (Connection c = db.getConnection()) {
            assertThat(maintenance.sweepExpired(c, held).total()).as("the two it does not hold").isEqualTo(2);
            assertThat(jobs.count("select count(*) from {s}.job where locked_by = 'node-0:1' and id in ("
                    + first + ", " + (first + 1) + ")")).as("the held ones, as they were").isEqualTo(2);
            assertThat(jobs.count("select count(*) from {s}.job where locked_by is null")).isEqualTo(2);
            // Control: no longer held, they are recovered like any other.
            assertThat(maintenance.sweepExpired(c, List.of()).total()).isEqualTo(2);
        }
        assertThat(jobs.count("select count(*) from {s}.job where locked_by is null")).isEqualTo(4);
    }
}
