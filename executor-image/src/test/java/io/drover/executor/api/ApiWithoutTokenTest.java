package io.drover.executor.api;

import io.drover.executor.testing.PostgresResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;

/** Without tokens the API is closed: no payload, no dead letter, no count for whoever reaches the port. */
@QuarkusTest
@QuarkusTestResource(PostgresResource.class)
class ApiWithoutTokenTest {
    @Test
    void theApiIsClosedUnlessATokenIsConfigured() {
        given().get("/api/v1/stats").then().statusCode(403).body("message", containsString("the API is closed"));
        given().get("/api/v1/jobs/1").then().statusCode(403);
        given().get("/api/v1/dead-letters").then().statusCode(403);
        given().contentType(ContentType.JSON).body("{\"type\":\"noop\"}").post("/api/v1/jobs")
                .then().statusCode(403).body("message", containsString("drover.api.token"));
        given().delete("/api/v1/dead-letters/1").then().statusCode(403);
        given().get("/q/health/live").then().statusCode(200);
    }
}
