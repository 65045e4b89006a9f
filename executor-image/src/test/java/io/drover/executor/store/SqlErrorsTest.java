package io.drover.executor.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The engine's retry decisions (the diagnosis itself is contract's DatabaseDiagnosisTest). */
class SqlErrorsTest {
    @Test
    void aRowsOwnFailureIsNotRetriedAndAnAttemptsIs() {
        assertThat(SqlErrors.rowRefused(new SQLException("value out of range", "22003"))).isTrue();
        assertThat(SqlErrors.worthRetrying(new SQLException("value out of range", "22003"))).isFalse();
        assertThat(SqlErrors.worthRetrying(new SQLException("deadlock", "40P01"))).isTrue();
        assertThat(SqlErrors.rowRefused(new SQLException("deadlock", "40P01"))).isFalse();
    }

    /** The completion writer and the start mark decide on every failure: a walk without an end would spin them forever. */
    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCyclicChainIsDecided() {
        IllegalStateException a = new IllegalStateException("pool");
        IllegalStateException b = new IllegalStateException("wrapper", a);
        a.initCause(b);

        assertThat(SqlErrors.worthRetrying(a)).as("no SQLState: treated as unreachable").isTrue();
        assertThat(SqlErrors.rowRefused(a)).isFalse();
    }
}
