package io.drover.executor.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.drover.executor.handler.PayloadJson;
import io.quarkus.jackson.ObjectMapperCustomizer;
import jakarta.inject.Singleton;

/** The API reads request bodies by {@link PayloadJson}'s rules: numbers as written, no field twice. */
@Singleton
public class ApiJson implements ObjectMapperCustomizer {
    @Override
    public void customize(ObjectMapper mapper) {
        PayloadJson.configure(mapper);
    }
}
