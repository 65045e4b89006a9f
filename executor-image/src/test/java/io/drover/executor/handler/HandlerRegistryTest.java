package io.drover.executor.handler;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HandlerRegistryTest {

    /** A handler whose type() is null stopped start-up with a bare NullPointerException that named nothing. */
    @Test
    void aHandlerWithoutATypeIsNamedAtStartUp() {
        assertThatThrownBy(() -> HandlerRegistry.of(List.of(new NoopHandler(), new Typed(null))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("handler " + Typed.class.getName() + " names no job type: its type() returned null;"
                        + " it must return the type of the jobs it runs");
        assertThatThrownBy(() -> HandlerRegistry.of(List.of(new Typed(" "))))
                .hasMessageContaining("its type() returned ' '");
    }

    @Test
    void twoHandlersForOneTypeAreRefused() {
        assertThatThrownBy(() -> HandlerRegistry.of(List.of(new Typed("noop"), new NoopHandler())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("two handlers for job type 'noop': ");
        assertThat(HandlerRegistry.of(List.of(new Typed("a"), new NoopHandler())).types()).containsExactlyInAnyOrder("a", "noop");
    }

    private record Typed(String type) implements JobHandler {
        @Override
        public void execute(JobContext job) {
        }
    }
}
