package io.drover.bench;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.bench.Database;
import io.drover.executor.bench.HelpOption;
import io.drover.executor.store.PooledDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code floor-clients}: the SQL floor at several pgbench client counts, interleaved, on the same
 * PostgreSQL as {@code local} ({@code make bench}). {@code make bench} runs its floor with
 * {@link Floors#CLIENTS} clients; this checks that a floor of another count would not be the
 * higher one, which would make the executor's ratio to it look better than it is. Writes its page
 * (docs/benchmarks/floor-clients.md), each figure with this command.
 */
@Command(name = "floor-clients", showDefaultValues = true,
        description = "The SQL floor at several client counts, interleaved (is make bench's floor the best it can be?).")
final class FloorClientsCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Option(names = "--clients", split = ",", defaultValue = "1,2,4", description = "pgbench client counts")
    List<Integer> clients;

    @Option(names = "--page", defaultValue = "256", description = "rows per statement")
    int page;

    @Option(names = "--jobs", defaultValue = "100000", description = "rows each run drains")
    int jobs;

    @Option(names = "--rounds", defaultValue = "3", description = "rounds; each runs every count and variant once")
    int rounds;

    @Option(names = "--out", defaultValue = "docs/benchmarks/floor-clients.md", description = "the page written")
    Path out;

    @Option(names = "--command", defaultValue = "floor-clients", description = "how the page says it was made")
    String command;

    @Option(names = "--revision", defaultValue = "unknown", description = "the source revision the page names")
    String revision;

    @Override
    public Integer call() throws Exception {
        List<SqlFloor.Result> runs = new ArrayList<>();
        try (EmbeddedPostgres pg = LocalCommand.durablePostgres()) {
            Database db = new Database(pg.getJdbcUrl("postgres", "postgres"), "postgres", "postgres");
            try (AgroalDataSource ds = PooledDataSource.create(db.jdbcUrl(), db.user(), db.password(), 4)) {
                PostgresCpu postgres = PostgresCpu.of(ds);
                for (int round = 1; round <= rounds; round++) {
                    for (int n : clients) {
                        for (FloorScript script : List.of(FloorScript.twoCommit(SqlFloor.SCHEMA, page),
                                FloorScript.deleteOnly(SqlFloor.SCHEMA, page))) {
                            SqlFloor.Result r = SqlFloor.run(ds, db, postgres, script, "round " + round, jobs, n);
                            System.out.println(n + " clients: " + Floors.line(r));
                            runs.add(r);
                        }
                    }
                }
            }
        }
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, page(runs));
        System.out.println("wrote " + out);
        return 0;
    }

    private String page(List<SqlFloor.Result> runs) {
        StringBuilder md = new StringBuilder();
        md.append("# The SQL floor at several client counts\n\n");
        md.append(String.format(Locale.ROOT, "Written by `%s` on %s at %s, on this project's 2-core machine with the"
                + " PostgreSQL `make bench` starts (embedded, fsync and synchronous_commit on). `make bench` runs its"
                + " floor with %d pgbench clients; this page checks that another count would not make a higher floor,"
                + " against which the executor's ratio would be lower. Each round runs every count and variant once,"
                + " interleaved, %,d rows a run, pages of %d. Jobs/s of each run, and the median:%n%n",
                command, LocalDate.now(), revision, Floors.CLIENTS, jobs, page));
        md.append("| variant | clients | jobs/s, each round | median | database CPU µs/job, median |\n|---|---|---|---|---|\n");
        for (String variant : runs.stream().map(SqlFloor.Result::variant).distinct().toList()) {
            for (int n : clients) {
                List<SqlFloor.Result> of = runs.stream().filter(r -> r.variant().equals(variant) && r.clients() == n).toList();
                md.append(String.format(Locale.ROOT, "| %s | %d | %s | %,.0f | %.1f |%n", variant, n,
                        String.join(", ", of.stream().map(r -> String.format(Locale.ROOT, "%,.0f", r.jobsPerSecond())).toList()),
                        BenchMatrix.median(of.stream().map(SqlFloor.Result::jobsPerSecond).toList()),
                        BenchMatrix.median(of.stream().map(SqlFloor.Result::databaseCpuMicrosPerJob).toList())));
            }
        }
        md.append("\nThe counts' medians are what to compare: single drains of this size last a second or two on a"
                + " shared machine and move by a tenth or more between runs.\n");
        return md.toString();
    }
}
