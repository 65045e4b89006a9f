package io.drover.executor.bench;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code make bench} / {@code make bench-quick}: starts a PostgreSQL of its own (embedded
 * binaries) with durable commits, as on RDS, and runs the benchmark matrix against it with
 * the packaged executor. The embedded builder turns fsync, synchronous_commit and
 * full_page_writes off by default (right for tests, wrong for a benchmark): they are set on
 * here, and the report reads them back from the server.
 */
public final class LocalBench {
    public static void main(String[] args) throws Exception {
        try (EmbeddedPostgres pg = EmbeddedPostgres.builder()
                .setServerConfig("max_connections", "200")
                .setServerConfig("shared_buffers", "256MB")
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("full_page_writes", "on")
                .start()) {
            List<String> argv = new ArrayList<>(List.of("matrix", "--jdbc-url=" + pg.getJdbcUrl("postgres", "postgres"),
                    "--user=postgres", "--password=postgres"));
            argv.addAll(List.of(args));
            int code = BenchMain.run(argv.toArray(String[]::new));
            if (code != 0) {
                System.exit(code);
            }
        }
        System.exit(0);
    }
}
