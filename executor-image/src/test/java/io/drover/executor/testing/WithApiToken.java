package io.drover.executor.testing;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.Map;

/** The service with an API token configured, as a Secret would provide it. */
public class WithApiToken implements QuarkusTestProfile {
    public static final String TOKEN = "s3cret-test-token";

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("drover.api.token", TOKEN, "drover.api.maxBatch", "5000");
    }
}
