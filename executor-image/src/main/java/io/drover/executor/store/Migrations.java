package io.drover.executor.store;

import org.flywaydb.core.Flyway;

import javax.sql.DataSource;

/**
 * Applies the schema migrations outside Quarkus (benchmark tool, tests, demo). Inside the
 * service, quarkus-flyway applies the same scripts from {@link #LOCATION} at startup.
 */
public final class Migrations {
    public static final String LOCATION = "classpath:db/migration";
    public static final String HISTORY_TABLE = "flyway_schema_history";

    private Migrations() {
    }

    public static void migrate(DataSource dataSource, String schema) {
        Flyway.configure()
                .dataSource(dataSource)
                .schemas(schema)
                .defaultSchema(schema)
                .table(HISTORY_TABLE)
                .locations(LOCATION)
                .load()
                .migrate();
    }
}
