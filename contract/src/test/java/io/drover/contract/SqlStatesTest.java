package io.drover.contract;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

class SqlStatesTest {
    @Test
    void theFirstStateInTheChainCounts() {
        SQLException inner = new SQLException("connection refused to db.internal:5432", "08001");
        SQLException noState = new SQLException("wrapper without a state", (String) null, inner);
        RuntimeException outer = new RuntimeException("pool", new SQLException("tx", "40001", noState));

        assertThat(SqlStates.first(outer)).isEqualTo("40001");
        assertThat(SqlStates.first(noState)).as("a SQLException without a state is passed over").isEqualTo("08001");
        assertThat(SqlStates.describe(outer)).isEqualTo("SQLState 40001");
    }

    @Test
    void noStateIsNull() {
        assertThat(SqlStates.first(new UncheckedIOException(new IOException("reset")))).isNull();
        assertThat(SqlStates.first(null)).isNull();
        assertThat(SqlStates.describe(new IllegalStateException("x"))).isEqualTo("no SQLState");
    }

    @Test
    void aCyclicChainEnds() {
        RuntimeException a = new RuntimeException("a") {
            @Override
            public synchronized Throwable getCause() {
                return this; // a wrapper that names itself; Throwable.initCause refuses it, getCause can still do it
            }
        };
        assertThat(SqlStates.first(a)).isNull();
    }
}
