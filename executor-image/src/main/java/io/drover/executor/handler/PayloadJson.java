package io.drover.executor.handler;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * How Drover reads JSON it stores or passes on (job requests, payloads): numbers are kept as
 * written and a field given twice is an error. Jackson's defaults read every decimal as a
 * double, so a payload's {@code 12345678901234567.89} was stored as {@code 1.2345678901234568E16}
 * and {@code 1e400} as the string {@code "Infinity"}; and of a field given twice the last one won
 * silently ({@code {"type": "noop", "type": "http"}} enqueued an http job, where a gateway that
 * keeps the first saw a no-op).
 */
public final class PayloadJson {
    private static final ObjectMapper MAPPER = configure(JsonMapper.builder().build());

    private PayloadJson() {
    }

    /** The mapper for payloads (handlers' own parsing). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** Applies the rules to {@code mapper} (the API's, through Quarkus' ObjectMapperCustomizer). */
    public static ObjectMapper configure(ObjectMapper mapper) {
        mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        mapper.configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false); // 1.50 stays 1.50
        mapper.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT); // maxAttempts: 1.7 is not 1
        mapper.getFactory().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION.mappedFeature());
        return mapper;
    }
}
