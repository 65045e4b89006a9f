package io.drover.executor.testing;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;

import java.util.Map;

/** The service with its API tokens configured, as a Secret would provide them. */
public class WithApiToken implements QuarkusTestProfile {
    public static final String TOKEN = "s3cret-test-token";
    public static final String READ_TOKEN = "read-only-test-token";

    /** A JSON request with the write token, as a producer sends it. */
    public static RequestSpecification writer() {
        return io.restassured.RestAssured.given().header("Authorization", "Bearer " + TOKEN).contentType(ContentType.JSON);
    }

    @Override
    public Map<String, String> getConfigOverrides() {
        // The write token as a Secret made with --from-file holds it: with a newline, which no client sends.
        return Map.of("drover.api.token", TOKEN + "\n", "drover.api.readToken", READ_TOKEN, "drover.api.maxBatch", "5000");
    }
}
