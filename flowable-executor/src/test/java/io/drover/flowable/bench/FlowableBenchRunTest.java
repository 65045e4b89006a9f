package io.drover.flowable.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.drover.flowable.engine.FlowableNode;
import io.drover.flowable.testing.EmbeddedPostgres;
import io.drover.flowable.testing.RunningNode;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code FlowableBench run} end to end against the running test node (its async executor drains
 * what the bench seeds), as the in-cluster bench Job runs it: Flowable's tables vacuumed first,
 * then the seed and the timed drain.
 */
@QuarkusTest
@WithTestResource(EmbeddedPostgres.class)
class FlowableBenchRunTest {
    private static final String SCHEMA = "flowable_test";

    @Inject
    FlowableNode node;

    @Test
    void aRunVacuumsFlowablesTablesThenTimesTheDrainOfItsSeed() throws Exception {
        RunningNode.engine(node);
        Map<String, Long> before = vacuumCounts();
        Path json = Files.createTempFile("flowable-bench", ".json");

        int exit = new CommandLine(new FlowableBench()).execute("run",
                "--jdbc-url=" + EmbeddedPostgres.server().getJdbcUrl("postgres", "postgres"), "--user=postgres",
                "--password=postgres", "--schema=" + SCHEMA, "--kind=noop", "--jobs=20", "--timeout=60s",
                "--json=" + json);

        assertThat(exit).isZero();
        JsonNode result = new ObjectMapper().readTree(json.toFile());
        assertThat(result.get("drained").asLong()).isEqualTo(20);
        // VACUUM records its visit in the table's statistics at once (autovacuum's are counted apart).
        Map<String, Long> after = vacuumCounts();
        for (String table : List.of("act_ru_job", "act_ru_timer_job", "act_ru_execution", "act_hi_procinst")) {
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
