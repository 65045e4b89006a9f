package io.drover.contract;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

class CausesTest {
    @Test
    void theChainRunsOutermostFirstToTheRoot() {
        SocketTimeoutException root = new SocketTimeoutException("Read timed out");
        SQLException sql = new SQLException("I/O error", "08006", root);
        RuntimeException outer = new RuntimeException("acquire", sql);

        assertThat(Causes.chain(outer)).containsExactly(outer, sql, root);
        assertThat(Causes.root(outer)).isSameAs(root);
        assertThat((Throwable) Causes.find(outer, SQLException.class)).isSameAs(sql);
        assertThat(Causes.find(outer, IOException.class)).as("a subtype counts").isSameAs(root);
        assertThat(Causes.has(outer, IllegalStateException.class, SocketTimeoutException.class)).isTrue();
        assertThat(Causes.has(outer, IllegalStateException.class)).isFalse();
    }

    @Test
    void nullIsAnEmptyChain() {
        assertThat(Causes.chain(null)).isEmpty();
        assertThat(Causes.root(null)).isNull();
        assertThat((Throwable) Causes.find(null, SQLException.class)).isNull();
        assertThat(Causes.root(new IllegalStateException("alone"))).hasMessage("alone");
    }

    @Test
    void twoWrappersNamingEachOtherEnd() {
        IllegalStateException a = new IllegalStateException("a");
        IllegalStateException b = new IllegalStateException("b", a);
        a.initCause(b); // initCause refuses only a throwable naming itself

        assertThat(Causes.chain(a)).containsExactly(a, b);
        assertThat(Causes.root(a)).isSameAs(b);
        assertThat((Throwable) Causes.find(a, SQLException.class)).isNull();
    }

    @Test
    void aThrowableNamingItselfEnds() {
        RuntimeException self = new RuntimeException("self") {
            @Override
            public synchronized Throwable getCause() {
                return this;
            }
        };
        assertThat(Causes.chain(self)).containsExactly(self);
    }

    @Test
    void aChainThatNeverRepeatsEndsAtTheDepthLimit() {
        // each getCause builds a new wrapper: no identity repeats, so only the depth ends it
        class Endless extends RuntimeException {
            @Override
            public synchronized Throwable getCause() {
                return new Endless();
            }
        }
        assertThat(Causes.chain(new Endless())).hasSize(Causes.MAX_DEPTH);
        assertThat(Causes.has(new Endless(), SQLException.class)).isFalse();
    }
}
