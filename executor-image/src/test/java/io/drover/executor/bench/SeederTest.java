package io.drover.executor.bench;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.store.PooledDataSource;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** The bench's seed and the vacuum before it, on a real PostgreSQL. */
class SeederTest {
    private final AgroalDataSource db = TestDatabase.sharedPool();
    private final String schema = TestDatabase.freshSchema(db);

    @Test
    void aDrainedTablesDeadRowsAreGoneBeforeTheNextSeed() throws Exception {
        Seeder.Seeded seeded = Seeder.seed(db, schema, JobKind.parse("noop"), 20_000);
        assertThat(seeded.count()).isEqualTo(20_000);
        assertThat(update("delete from " + schema + ".job")).isEqualTo(20_000); // as a drain leaves it
        assertThat(pages()).as("the deleted rows' pages").isPositive();

        assertThat(Seeder.vacuum(db, schema)).isNull();

        // Every row version was dead, so VACUUM removed them all and gave the empty pages back.
        assertThat(pages()).isZero();
        Seeder.Seeded next = Seeder.seed(db, schema, JobKind.parse("timer"), 10);
        assertThat(next.afterId()).isEqualTo(seeded.lastId());
        assertThat(next.count()).isEqualTo(10);
    }

    @Test
    void deadRowsAnOlderSnapshotStillSeesAreNamedNotHidden() throws Exception {
        Seeder.seed(db, schema, JobKind.parse("noop"), 1_000);
        try (Connection reader = db.getConnection(); Statement s = reader.createStatement()) {
            reader.setAutoCommit(false);
            reader.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            s.executeQuery("select count(*) from " + schema + ".job").close(); // its snapshot sees every row
            update("delete from " + schema + ".job");

            assertThat(Seeder.vacuum(db, schema)).contains("1000 dead row versions could not be removed");
            reader.rollback();
        }
        assertThat(Seeder.vacuum(db, schema)).isNull();
    }

    @Test
    void aRoleThatMayNotVacuumTheTableGetsTheServersReasonNotAnError() throws Exception {
        String role = schema + "_bench";
        update("create role " + role + " login password 'bench'");
        update("grant usage on schema " + schema + " to " + role);
        update("grant select, insert, update, delete on all tables in schema " + schema + " to " + role);
        String url = "jdbc:postgresql://localhost:" + TestDatabase.server().getPort() + "/postgres"; // no user= in it
        try (AgroalDataSource asRole = PooledDataSource.create(url, role, "bench", 2)) {
            assertThat(Seeder.vacuum(asRole, schema)).contains("skipping").contains("job");
        }
    }

    private int update(String sql) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            return s.executeUpdate(sql);
        }
    }

    private long pages() throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select pg_relation_size('" + schema + ".job') / 8192")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
