package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Transactions.run on a real PostgreSQL: what a failure inside the work leaves behind. */
class TransactionsTest {
    private static final AgroalDataSource pool = TestDatabase.sharedPool();

    @Test
    void anErrorInTheWorkRollsBackInsteadOfCommittingWithTheRestoredAutoCommit() throws Exception {
        String table = "tx_" + System.nanoTime();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("create table " + table + " (n int)");
            assertThatThrownBy(() -> Transactions.run(c, () -> {
                s.execute("insert into " + table + " values (1)");
                throw new StackOverflowError("in the work");
            })).isInstanceOf(StackOverflowError.class);
            assertThat(c.getAutoCommit()).as("auto-commit restored").isTrue();
            assertThat(count(s, table)).as("the insert was rolled back, not committed").isZero();

            assertThatThrownBy(() -> Transactions.run(c, () -> {
                s.execute("insert into " + table + " values (1)");
                throw new SQLException("refused", "23514");
            })).isInstanceOf(SQLException.class).hasMessage("refused");
            assertThat(count(s, table)).isZero();

            Transactions.run(c, () -> s.execute("insert into " + table + " values (1)"));
            assertThat(count(s, table)).as("committed").isEqualTo(1);
            s.execute("drop table " + table);
        }
    }

    private static int count(Statement s, String table) throws SQLException {
        try (ResultSet rs = s.executeQuery("select count(*) from " + table)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
