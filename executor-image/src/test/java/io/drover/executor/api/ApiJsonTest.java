package io.drover.executor.api;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How the API reads request bodies, with the mapper as the node configures it: payloads read as
 * text, never as trees (a tree of a 10 MB payload of empty objects held 284 MB), in exactly the
 * text the tree gave (stored payloads and idempotency fingerprints unchanged); a batch's jobs past
 * maxBatch counted, not read.
 */
class ApiJsonTest {
    private final ObjectMapper mapper = mapper(5);

    private static ObjectMapper mapper(int maxBatch) {
        ObjectMapper m = JsonMapper.builder().build();
        new ApiJson(maxBatch).customize(m);
        return m;
    }

    @ParameterizedTest
    @ValueSource(strings = {"100", "-0", "12345678901234567890123", "1.50", "1e400", "-2.5E-7", "0.000001", "true", "null",
            "{\"a\":[1,2.0,{\"b\":null}],\"c\":\"d\\\"e\\u0001\\u00e9\\ud83d\\ude00\"}", "[]", "{}", "[[],{},[{}]]",
            " { \"spaced\" : [ 1 , 2 ] } ", "\"text\"", "\"\\u0000\""})
    void aPayloadReadsAsTheTextItsTreeGave(String payload) throws Exception {
        var tree = mapper.readTree(payload);
        JobRequest read = mapper.readValue("{\"type\":\"noop\",\"payload\":" + payload + "}", JobRequest.class);
        if (tree.isNull()) { // nothing stored, as when left out; fingerprinted as the tree's NullNode was
            assertThat(read.payload().text()).isNull();
            assertThat(read.payload().json()).isEqualTo("null");
            assertThat(mapper.readValue("{\"type\":\"noop\"}", JobRequest.class).payload()).as("left out").isNull();
            return;
        }
        assertThat(read.payload().json()).as("the fingerprint's text").isEqualTo(tree.toString());
        assertThat(read.payload().text()).as("the stored text").isEqualTo(tree.isTextual() ? tree.asText() : tree.toString());
    }

    @Test
    void aHugePayloadOfEmptyObjectsIsReadAsTextNotAsATree() throws Exception {
        StringBuilder body = new StringBuilder("{\"type\":\"noop\",\"payload\":[");
        for (int i = 0; i < 1_000_000; i++) {
            body.append(i == 0 ? "{}" : ",{}");
        }
        body.append("]}");
        JobRequest read = mapper.readValue(body.toString(), JobRequest.class);
        assertThat(read.payload().text()).hasSize(2_999_999 + 2);
    }

    @Test
    void aBatchPastMaxBatchIsCountedNotRead() throws Exception {
        StringBuilder body = new StringBuilder("{\"jobs\":[");
        for (int i = 0; i < 100_000; i++) {
            body.append(i == 0 ? "{}" : ",{\"type\":\"noop\",\"payload\":[1,2,3]}");
        }
        body.append("]}");
        JobBatchRequest read = mapper.readValue(body.toString(), JobBatchRequest.class);
        assertThat(read.count()).isEqualTo(100_000);
        assertThat(read.jobs()).hasSize(5);
    }

    @Test
    void aBadJobInABatchIsNamedByItsPlace() {
        assertThatThrownBy(() -> mapper.readValue("{\"jobs\":[{\"type\":\"noop\"},{\"type\":\"noop\",\"maxAttempts\":\"x\"}]}",
                JobBatchRequest.class)).isInstanceOfSatisfying(JsonMappingException.class,
                e -> assertThat(e.getPathReference()).contains("[\"jobs\"]->java.util.ArrayList[1]->").endsWith("[\"maxAttempts\"]"));
        assertThatThrownBy(() -> mapper.readValue("{\"jobs\":{}}", JobBatchRequest.class))
                .isInstanceOfSatisfying(JsonMappingException.class, e -> assertThat(e.getPath().getFirst().getFieldName()).isEqualTo("jobs"));
        assertThatThrownBy(() -> mapper.readValue("{\"jobs\":[{\"type\":\"noop\",\"payload\":{\"a\":1,\"a\":2}}]}", JobBatchRequest.class))
                .hasMessageContaining("Duplicate field 'a'");
    }
}
