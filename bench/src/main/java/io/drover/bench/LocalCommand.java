package io.drover.bench;

import io.drover.executor.bench.Database;
import io.drover.executor.bench.HelpOption;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/**
 * {@code local} ({@code make bench} / {@code make bench-quick}): starts a PostgreSQL of its own
 * (embedded binaries) with durable commits, as on RDS, and runs the benchmark matrix against it
 * with the packaged executor. The embedded builder turns fsync, synchronous_commit and
 * full_page_writes off by default (right for tests, wrong for a benchmark): they are set on
 * here, and the report reads them back from the server.
 */
@Command(name = "local", showDefaultValues = true,
        description = "The benchmark matrix against a PostgreSQL started here (make bench).")
final class LocalCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Mixin
    MatrixOptions matrix;

    @Override
    public Integer call() throws Exception {
        try (EmbeddedPostgres pg = durablePostgres()) {
            return BenchMatrix.run(new Database(pg.getJdbcUrl("postgres", "postgres"), "postgres", "postgres"), matrix);
        }
    }

    /** The benchmark's own PostgreSQL: embedded binaries, commits as durable as on RDS. */
    static EmbeddedPostgres durablePostgres() throws java.io.IOException {
        return EmbeddedPostgres.builder()
                .setServerConfig("max_connections", "200")
                .setServerConfig("shared_buffers", "256MB")
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("full_page_writes", "on")
                .start();
    }
}
