package io.drover.executor.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.drover.executor.service.DroverConfig;
import io.drover.executor.handler.PayloadJson;
import io.quarkus.jackson.ObjectMapperCustomizer;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/**
 * The API reads request bodies by {@link PayloadJson}'s rules (numbers as written, no field
 * twice), and a body is one JSON value with nothing after it: {"type":"noop"}{"type":"http"} was
 * read as its first object, and an idempotent retry with another tail was taken for the same
 * request. Handlers' payloads keep the lenient reading: an http payload of several JSON values
 * (NDJSON) is posted as it is.
 */
@Singleton
public class ApiJson implements ObjectMapperCustomizer {
    private final int maxBatch;

    @Inject
    ApiJson(DroverConfig config) {
        this(config.api().maxBatch());
    }

    ApiJson(int maxBatch) {
        this.maxBatch = maxBatch;
    }

    @Override
    public void customize(ObjectMapper mapper) {
        PayloadJson.configure(mapper);
        mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        // A field takes its own kind of JSON value only. Jackson's defaults coerce scalars:
        // "maxAttempts": "5" was read as 5, "" or "null" as omitted (the node's default, silently),
        // "type": 123 as "123", where docs/api.md promises a whole number written as one.
        mapper.coercionConfigDefaults()
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        // A batch's jobs past maxBatch are counted, not read (RequestPayload: payloads as text, not trees).
        mapper.registerModule(new SimpleModule("drover-api").addDeserializer(JobBatchRequest.class, new JobBatchRequest.Reader(maxBatch)));
    }
}
