package io.drover.executor.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.util.Map;

/** Points a @QuarkusTest at the embedded PostgreSQL, in a schema of its own. */
public class PostgresResource implements QuarkusTestResourceLifecycleManager {
    /** The service's schema. */
    public static final String SCHEMA = "quarkus_test";

    /** The service's jobs, read and written with SQL. */
    public static Jobs jobs(javax.sql.DataSource dataSource) {
        return new Jobs(dataSource, SCHEMA);
    }

    @Override
    public Map<String, String> start() {
        return Map.of(
                "quarkus.datasource.jdbc.url", TestDatabase.jdbcUrl(),
                "quarkus.datasource.username", "postgres",
                "quarkus.datasource.password", "postgres",
                "drover.schema", SCHEMA,
                "drover.nodeName", "quarkus-test");
    }

    @Override
    public void stop() {
        // the server lives for the whole test JVM
    }
}
