package io.drover.executor.engine;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.metrics.ExecutorMetrics;
import io.drover.executor.store.AcquiredJob;
import io.drover.executor.store.JobSql;
import io.drover.executor.store.LockMaintenance;
import io.drover.executor.store.Tables;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A renewal that fails is tried again within a second, not a whole renewal interval later: one
 * that waited out its call's timeout on a connection gone half-open ends three quarters into the
 * lease, and the next regular one would come as the lease runs out.
 */
class LockRenewerTest {
    private static final AgroalDataSource db = TestDatabase.sharedPool();
    private static final String OWNER = "node-0:1";

    @Test
    void aFailedRenewalIsTriedAgainSoon() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        Jobs jobs = new Jobs(db, schema);
        jobs.enqueue(1, "any", "", 3);
        jobs.execute("update {s}.job set locked_by = '" + OWNER + "', lock_expires_at = now() + interval '1 minute'");
        long id = jobs.count("select id from {s}.job");
        HeldJobs held = new HeldJobs(Duration.ofMinutes(1).toNanos());
        held.acquired(List.of(new AcquiredJob(id, 1, "any", "", 0, 3, Instant.now(), null, 0, 0, 0, false)), System.nanoTime());

        // The first connection the renewer asks for fails, as a call on a half-open one times out.
        List<Long> asked = new CopyOnWriteArrayList<>();
        DataSource failsOnce = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        asked.add(System.nanoTime());
                        if (asked.size() == 1) {
                            throw new SQLException("An I/O error occurred while sending to the backend.", "08006");
                        }
                        return db.getConnection();
                    }
                    return method.invoke(db, args);
                });
        Duration every = Duration.ofSeconds(4);
        LockRenewer renewer = new LockRenewer(failsOnce, new LockMaintenance(new JobSql(new Tables(schema)), OWNER,
                "node-0", Duration.ofMinutes(5), 3), held, new DatabaseHealth(), new Heartbeats(),
                new ExecutorMetrics(new SimpleMeterRegistry()), every, "node-0");
        renewer.start();
        try {
            Jobs.await("the renewal tried again and renewed the lock", Duration.ofSeconds(30),
                    () -> jobs.count("select count(*) from {s}.job where lock_expires_at > now() + interval '2 minutes'") == 1);
        } finally {
            renewer.stop(Duration.ofSeconds(5));
        }
        assertThat(asked).hasSizeGreaterThanOrEqualTo(2);
        assertThat(Duration.ofNanos(asked.get(1) - asked.get(0))).as("the retry came sooner than the next interval")
                .isLessThan(every.dividedBy(2));
    }
}
