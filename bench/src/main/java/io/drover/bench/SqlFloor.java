package io.drover.bench;

import io.drover.executor.bench.BenchRun;
import io.drover.executor.bench.Database;
import io.drover.executor.bench.JobKind;
import io.drover.executor.bench.Seeder;
import io.drover.executor.bench.Wal;
import io.drover.executor.store.Migrations;
import io.drover.schema.JobSchema;

import javax.sql.DataSource;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The practical ceiling of this database on this box: pgbench (shipped with PostgreSQL), 2
 * clients, each transaction locking 256 due rows with FOR UPDATE SKIP LOCKED and deleting
 * them, on the same table shape (a schema migrated like the executor's). No Java, no
 * network hop to a node, no handler: what is left is the database's own cost of taking jobs.
 */
final class SqlFloor {
    static final String SCHEMA = "drover_bench_floor";

    private SqlFloor() {
    }

    record Result(long jobs, int clients, int batch, double seconds, double jobsPerSecond, double walBytesPerJob) {
    }

    static Result run(DataSource dataSource, Database db, int jobs, int clients, int batch) throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("drop schema if exists " + SCHEMA + " cascade");
        }
        Migrations.migrate(dataSource, SCHEMA);
        Seeder.seed(dataSource, SCHEMA, JobKind.parse("noop"), jobs);
        Path script = Files.createTempFile("drover-floor", ".sql");
        String job = JobSchema.jobTable(SCHEMA);
        Files.writeString(script, "with picked as (select id from " + job
                + " where " + JobSchema.DUE_AND_UNLOCKED + " order by due_at limit " + batch
                + " for update skip locked) delete from " + job + " j using picked where j.id = picked.id;\n");
        // Enough transactions to drain the table; the few that find it empty cost a round trip each.
        int perClient = (int) Math.ceil((double) jobs / batch / clients) + 2;
        List<String> cmd = new ArrayList<>(List.of(pgbench(), "-n", "-c", Integer.toString(clients),
                "-j", Integer.toString(clients), "-t", Integer.toString(perClient), "-f", script.toString(),
                "-h", db.host(), "-p", Integer.toString(db.port()), "-U", db.user(), db.name()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("PGPASSWORD", db.password());
        String walStart = Wal.position(dataSource);
        long start = System.nanoTime();
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("pgbench failed:\n" + output);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double walBytes = Wal.bytesSince(dataSource, walStart);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select count(*) from " + SCHEMA + ".job")) {
            rs.next();
            if (rs.getLong(1) != 0) {
                throw new IllegalStateException("pgbench left " + rs.getLong(1) + " rows: raise the transaction count");
            }
        }
        return new Result(jobs, clients, batch, BenchRun.round(seconds, 2), BenchRun.round(jobs / seconds, 1),
                BenchRun.round(walBytes / jobs, 0));
    }

    static String pgbench() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (new File(dir, "pgbench").canExecute()) {
                return new File(dir, "pgbench").getPath();
            }
        }
        File[] versions = new File("/usr/lib/postgresql").listFiles();
        if (versions != null) {
            for (File v : versions) {
                File candidate = new File(v, "bin/pgbench");
                if (candidate.canExecute()) {
                    return candidate.getPath();
                }
            }
        }
        throw new IllegalStateException("pgbench not found (Debian: apt-get install postgresql-15)");
    }
}
