package io.drover.executor.testing;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.store.Migrations;
import io.drover.executor.store.PooledDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real PostgreSQL (embedded binaries, started once per test JVM) and a fresh, migrated
 * schema per test, so tests never see each other's jobs. Node processes started by a test
 * connect to the same server through {@link #jdbcUrl()}.
 */
public final class TestDatabase {
    private static final AtomicInteger SCHEMAS = new AtomicInteger();
    private static EmbeddedPostgres postgres;
    private static AgroalDataSource sharedPool;

    private TestDatabase() {
    }

    public static synchronized EmbeddedPostgres server() {
        if (postgres == null) {
            try {
                postgres = EmbeddedPostgres.builder()
                        .setServerConfig("max_connections", "300")
                        .setServerConfig("fsync", "off") // test data is disposable; keeps the box responsive
                        .start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    postgres.close();
                } catch (IOException ignored) {
                    // the JVM is exiting
                }
            }));
        }
        return postgres;
    }

    public static String jdbcUrl() {
        return server().getJdbcUrl("postgres", "postgres");
    }

    public static AgroalDataSource pool(int maxSize) {
        return PooledDataSource.create(jdbcUrl(), "postgres", "postgres", maxSize);
    }

    /**
     * One pool for all tests in this JVM: enough for an in-JVM engine, its handlers and the
     * test's own queries. Closed when the JVM exits.
     */
    public static synchronized AgroalDataSource sharedPool() {
        if (sharedPool == null) {
            sharedPool = pool(24);
            Runtime.getRuntime().addShutdownHook(new Thread(sharedPool::close));
        }
        return sharedPool;
    }

    /** Creates and migrates a new schema, plus the test_execution table the record handler writes. */
    public static String freshSchema(AgroalDataSource dataSource) {
        String schema = "t" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
        Migrations.migrate(dataSource, schema);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("create table " + schema + ".test_execution (run_id bigserial primary key, job_id bigint not null,"
                    + " node text not null, due_at timestamptz not null,"
                    + " executed_at timestamptz not null default clock_timestamp(), finished_at timestamptz)");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return schema;
    }
}
