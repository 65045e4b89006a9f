package io.drover.executor.bench;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code make bench} / {@code make bench-quick}: starts a PostgreSQL of its own (embedded
 * binaries, durable settings: fsync and synchronous_commit on, unlike the test database) and
 * runs the benchmark matrix against it with the packaged executor.
 */
public final class LocalBench {
    public static void main(String[] args) throws Exception {
        try (EmbeddedPostgres pg = EmbeddedPostgres.builder()
                .setServerConfig("max_connections", "200")
                .setServerConfig("shared_buffers", "256MB")
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
