package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.TestDatabase;
import io.drover.contract.JobSchema;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.drover.contract.JobSchema.ACQUIRE_INDEX;
import static io.drover.contract.JobSchema.ACQUIRE_ORDER;
import static io.drover.contract.JobSchema.JOB_TABLE;
import static io.drover.contract.JobSchema.UNLOCKED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The acquisition index JobSchema describes (and every acquisition statement and the operator's
 * KEDA query rely on) is the one migration V3 creates: editing one without the other fails here.
 */
class JobSchemaMigrationTest {
    private static final String V3 = "db/migration/V3__acquire_index_fifo.sql";
    private static final Pattern CREATE_INDEX = Pattern.compile(
            "create index (\\w+) on (\\w+) \\(([^)]*)\\) where ([^;]*);", Pattern.CASE_INSENSITIVE);

    private final AgroalDataSource db = TestDatabase.sharedPool();

    @Test
    void migrationV3CreatesJobSchemasAcquisitionIndex() throws Exception {
        String script;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(V3)) {
            assertThat(in).as(V3 + " on the classpath").isNotNull();
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String statements = script.replaceAll("--[^\n]*", "").replaceAll("\\s+", " ");
        Matcher index = CREATE_INDEX.matcher(statements);
        assertThat(index.find()).as("V3 creates an index: " + statements).isTrue();
        assertThat(List.of(index.group(1), index.group(2), index.group(3), index.group(4).trim()))
                .as("name, table, key order, partial predicate")
                .containsExactly(ACQUIRE_INDEX, JOB_TABLE, ACQUIRE_ORDER, UNLOCKED);
        assertThat(index.find()).as("V3 creates one index").isFalse();
    }

    /**
     * In a schema migrated by every script (so a later migration that redefines the index fails
     * too), PostgreSQL's own rendering of the index equals that of one built from JobSchema.
     */
    @Test
    void theMigratedIndexIsTheOneJobSchemaDescribes() throws Exception {
        String schema = TestDatabase.freshSchema(db);
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("create index described on " + JobSchema.jobTable(schema) + " (" + ACQUIRE_ORDER + ")"
                    + " where " + UNLOCKED);
            String described = definition(c, schema + ".described");
            assertThat(definition(c, schema + "." + ACQUIRE_INDEX)).isNotNull()
                    .isEqualTo(described.replace("described", ACQUIRE_INDEX));
        }
    }

    private static String definition(Connection c, String index) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("select pg_get_indexdef(to_regclass(?))")) {
            ps.setString(1, index);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }
}
