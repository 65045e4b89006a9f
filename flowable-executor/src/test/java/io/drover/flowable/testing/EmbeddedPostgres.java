package io.drover.flowable.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/** A real PostgreSQL (embedded binaries, one per test JVM) for a @QuarkusTest of the Flowable node. */
public class EmbeddedPostgres implements QuarkusTestResourceLifecycleManager {
    private static io.zonky.test.db.postgres.embedded.EmbeddedPostgres server;

    public static synchronized io.zonky.test.db.postgres.embedded.EmbeddedPostgres server() {
        if (server == null) {
            try {
                server = io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
                        .setServerConfig("max_connections", "200")
                        .setServerConfig("fsync", "off") // test data is disposable
                        .start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
            }
        }
        return server;
    }

    @Override
    public Map<String, String> start() {
        return Map.of(
                "quarkus.datasource.jdbc.url", server().getJdbcUrl("postgres", "postgres"),
                "quarkus.datasource.username", "postgres",
                "quarkus.datasource.password", "postgres",
                "drover.schema", "flowable_test",
                "drover.nodeName", "flowable-test-0",
                "drover.lockMode", "Global",
                "drover.acquireInterval", "200ms",
                // Locks that would lapse during the renewal test's 9 s jobs if the node did not renew them.
                "drover.lockExpiry", "4s");
    }

    @Override
    public void stop() {
        // the server lives for the whole test JVM
    }
}
