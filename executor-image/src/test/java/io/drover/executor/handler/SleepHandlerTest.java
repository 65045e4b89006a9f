package io.drover.executor.handler;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SleepHandlerTest {
    @Test
    void readsMillisecondsAsNumberOrObject() throws Exception {
        assertThat(SleepHandler.millis("100")).isEqualTo(100);
        assertThat(SleepHandler.millis("{\"ms\": 250}")).isEqualTo(250);
    }

    @Test
    void rejectsPayloadsItCannotUseAsInvalidPayload() {
        assertThatThrownBy(() -> SleepHandler.millis("soon")).isInstanceOf(InvalidPayloadException.class)
                .hasMessageContaining("not a number or JSON");
        assertThatThrownBy(() -> SleepHandler.millis("{\"seconds\": 1}")).isInstanceOf(InvalidPayloadException.class)
                .hasMessageContaining("must be milliseconds");
        assertThatThrownBy(() -> SleepHandler.millis("-5")).isInstanceOf(InvalidPayloadException.class);
        assertThatThrownBy(() -> SleepHandler.millis(null)).isInstanceOf(InvalidPayloadException.class);
    }
}
