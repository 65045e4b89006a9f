package io.drover.executor.api;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What counts as the same request for an idempotency key, and what a key may be. */
class IdempotencyKeysTest {
    private static byte[] one(JobRequest job) {
        return IdempotencyKeys.request("one", List.of(job));
    }

    @Test
    void aRequestIsComparedAsSentFieldByField() {
        JobRequest job = new JobRequest("sleep", new RequestPayload("100", false), null, null, null);
        assertThat(one(job)).isEqualTo(one(new JobRequest("sleep", new RequestPayload("100", false), null, null, null)));
        assertThat(one(job)).as("an omitted maxAttempts is not the node's default")
                .isNotEqualTo(one(new JobRequest("sleep", new RequestPayload("100", false), null, 3, null)));
        assertThat(one(job)).as("the number 100 and the string 100")
                .isNotEqualTo(one(new JobRequest("sleep", new RequestPayload("100", true), null, null, null)));
        assertThat(one(new JobRequest("sleep", RequestPayload.JSON_NULL, null, null, null))).as("payload null given, and left out")
                .isNotEqualTo(one(new JobRequest("sleep", null, null, null, null)));
        assertThat(one(new JobRequest("ab", null, "c", null, null))).as("fields do not run into each other")
                .isNotEqualTo(one(new JobRequest("a", null, "bc", null, null)));
        assertThat(one(job)).as("the other call").isNotEqualTo(IdempotencyKeys.request("batch", List.of(job)));
    }

    @Test
    void aKeyIsOneTo255VisibleAsciiCharacters() {
        assertThat(IdempotencyKeys.valid("3f1c2a9e-7d6b-4c1e-9a51-0b8f7e6d5c4b")).isNotEmpty();
        assertThat(IdempotencyKeys.valid("k".repeat(255))).hasSize(255);
        for (String bad : List.of("", "two words", "k".repeat(256), "tab\there", "caf\u00e9")) {
            assertThatThrownBy(() -> IdempotencyKeys.valid(bad)).isInstanceOf(InvalidRequestException.class)
                    .satisfies(e -> assertThat(((InvalidRequestException) e).errors().get(0).field())
                            .isEqualTo("Idempotency-Key"));
        }
    }
}
