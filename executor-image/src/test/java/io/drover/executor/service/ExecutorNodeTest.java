package io.drover.executor.service;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.acquire.LockMode;
import io.drover.executor.testing.Jobs;
import io.drover.executor.testing.PostgresResource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The service as deployed: Quarkus config, Flyway at startup, CDI handlers, Micrometer. */
@QuarkusTest
@QuarkusTestResource(PostgresResource.class)
class ExecutorNodeTest {
    @Inject
    ExecutorNode service;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    MeterRegistry registry;

    @Test
    void runsJobsFromTheMigratedSchemaWithConfiguredSettings() throws Exception {
        // The engine starts once the database is reached (DatabaseStartup, in the background): a
        // test class that runs right after Quarkus started may come before it.
        Jobs.await("the engine started", Duration.ofSeconds(30), () -> service.engine().isPresent());
        var engine = service.engine().orElseThrow();
        assertThat(engine.settings().schema()).isEqualTo("quarkus_test");
        assertThat(engine.settings().lockMode()).isEqualTo(LockMode.SkipLocked);
        assertThat(engine.owner()).startsWith("quarkus-test:");

        Jobs jobs = new Jobs(dataSource, "quarkus_test");
        jobs.enqueue(200, "noop", "", 3);
        engine.wakeUp();
        Jobs.await("noop jobs executed", Duration.ofSeconds(30), () -> jobs.jobsLeft() == 0);

        double succeeded = registry.get("drover.jobs.executed").tag("type", "noop").tag("outcome", "succeeded")
                .counter().count();
        assertThat(succeeded).isEqualTo(200);
        assertThat(registry.get("drover.acquisition.jobs").summary().totalAmount()).isEqualTo(200);
    }

    /**
     * The shared pool's sessions (the API's, handlers') have the server probe their clients: one
     * whose client vanished mid-transaction kept its row locks for the OS's two hours.
     */
    @Test
    void theSharedPoolsSessionsHaveTheServerProbeTheirClients() throws Exception {
        try (var c = dataSource.getConnection(); var s = c.createStatement();
             var rs = s.executeQuery("select current_setting('tcp_keepalives_idle'), current_setting('tcp_keepalives_interval'),"
                     + " current_setting('tcp_keepalives_count')")) {
            rs.next();
            assertThat(List.of(rs.getString(1), rs.getString(2), rs.getString(3))).containsExactly("30", "10", "3");
        }
    }
}
