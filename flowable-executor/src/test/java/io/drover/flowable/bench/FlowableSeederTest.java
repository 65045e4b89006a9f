package io.drover.flowable.bench;

import io.drover.flowable.engine.FlowableNode;
import io.drover.flowable.testing.EmbeddedPostgres;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The Flowable bench's vacuum before a seed, on the schema a running node created. */
@QuarkusTest
@WithTestResource(EmbeddedPostgres.class)
class FlowableSeederTest {
    private static final String SCHEMA = "flowable_test";

    @Inject
    FlowableNode node;

    @Test
    void theRuntimeTablesAreVacuumedBeforeASeed() throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofMinutes(1));
        while (node.state() != FlowableNode.State.RUNNING && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
        }
        assertThat(node.state()).isEqualTo(FlowableNode.State.RUNNING);
        Map<String, Long> before = vacuumCounts();
        String url = EmbeddedPostgres.server().getJdbcUrl("postgres", "postgres");
        try (FlowableSeeder seeder = new FlowableSeeder(url, "postgres", "postgres", SCHEMA)) {
            assertThat(seeder.vacuumRuntimeTables()).isNull();
        }
        // VACUUM records its visit in the table's statistics at once.
        Map<String, Long> after = vacuumCounts();
        for (String table : List.of("act_ru_job", "act_ru_timer_job", "act_ru_execution")) {
            assertThat(after.get(table)).as(table + "'s vacuums").isEqualTo(before.get(table) + 1);
        }
    }

    private static Map<String, Long> vacuumCounts() throws Exception {
        Map<String, Long> counts = new HashMap<>();
        try (Connection c = EmbeddedPostgres.server().getPostgresDatabase().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select relname, vacuum_count from pg_stat_user_tables where schemaname = '"
                     + SCHEMA + "'")) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getLong(2));
            }
        }
        return counts;
    }
}
