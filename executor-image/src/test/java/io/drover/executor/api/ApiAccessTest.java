package io.drover.executor.api;

import io.drover.executor.testing.PostgresResource;
import io.drover.executor.testing.WithApiToken;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.restassured.RestAssured.given;

/**
 * Who may do what on the API, request by request: no token, a wrong one, the read token
 * (drover.api.readToken) and the read-write token (drover.api.token). Health and metrics are
 * outside /api and open (probes and the scraper; the NetworkPolicy limits who reaches them).
 */
@QuarkusTest
@TestProfile(WithApiToken.class)
@QuarkusTestResource(PostgresResource.class)
class ApiAccessTest {
    @ParameterizedTest(name = "{0} {1} {2} -> {3}")
    @CsvSource({
            // token, method, path,                      status
            "none,  GET,    /api/v1/stats,                    401",
            "none,  GET,    /api/v1/jobs/1,                   401",
            "none,  GET,    /api/v1/dead-letters,             401",
            "none,  POST,   /api/v1/jobs,                     401",
            "wrong, GET,    /api/v1/stats,                    401",
            "wrong, POST,   /api/v1/jobs,                     401",
            "read,  GET,    /api/v1/stats,                    200",
            "read,  GET,    /api/v1/dead-letters,             200",
            "read,  GET,    /api/v1/jobs/999999999,           404",
            "read,  POST,   /api/v1/jobs,                     403",
            "read,  POST,   /api/v1/jobs/batch,               403",
            "read,  POST,   /api/v1/dead-letters/999999999/retry, 403",
            "read,  DELETE, /api/v1/dead-letters/999999999,   403",
            "write, GET,    /api/v1/stats,                    200",
            "write, GET,    /api/v1/dead-letters,             200",
            "lowercase-scheme, POST, /api/v1/jobs,           201",
            "write, POST,   /api/v1/jobs,                     201",
            "write, POST,   /api/v1/jobs/batch,               201",
            "write, POST,   /api/v1/dead-letters/999999999/retry, 404",
            "write, DELETE, /api/v1/dead-letters/999999999,   404",
            "none,  GET,    /q/drover/node,                   200",
            "none,  GET,    /q/health/live,                   200",
            "none,  GET,    /q/metrics,                       200",
    })
    void answers(String token, String method, String path, int status) {
        send(token, method, path).then().statusCode(status);
    }

    /** Matrix parameters and doubled slashes never reach a resource without a token (401, or not routed: 404). */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"GET, /api;x=1/v1/stats", "POST, /api;x=1/v1/jobs", "GET, //api/v1/stats", "GET, /api/v1/stats;x=1",
            "GET, /API/v1/stats"})
    void oddPathsAreNotAWayAround(String method, String path) {
        int status = send("none", method, path).then().extract().statusCode();
        org.assertj.core.api.Assertions.assertThat(status).as(method + " " + path).isIn(401, 404);
    }

    private static io.restassured.response.Response send(String token, String method, String path) {
        RequestSpecification request = given().contentType(ContentType.JSON);
        switch (token) {
            case "read" -> request.header("Authorization", "Bearer " + WithApiToken.READ_TOKEN);
            case "write" -> request.header("Authorization", "Bearer " + WithApiToken.TOKEN);
            case "wrong" -> request.header("Authorization", "Bearer not-the-token");
            case "lowercase-scheme" -> request.header("Authorization", "bearer " + WithApiToken.TOKEN);
            default -> {
            }
        }
        if (method.equals("POST")) {
            request.body(path.endsWith("/batch") ? "{\"jobs\":[{\"type\":\"noop\"}]}" : path.endsWith("/jobs") ? "{\"type\":\"noop\"}" : "");
        }
        return request.request(method, path);
    }
}
