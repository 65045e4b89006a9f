package io.drover.bench;

import io.drover.bench.core.BenchResult;
import io.drover.bench.core.Commits;
import io.drover.executor.bench.Database;
import io.drover.executor.bench.JobKind;
import io.drover.executor.bench.Seeder;
import io.drover.bench.core.Wal;
import io.drover.executor.store.Migrations;

import javax.sql.DataSource;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The practical ceiling of this database on this box: pgbench (shipped with PostgreSQL) taking
 * and finishing the same jobs as the executor, on the same table shape (a schema migrated like
 * the executor's), with no Java, no network hop to a node and no handler: what is left is the
 * database's own cost of taking jobs. To be a fair ceiling it runs the plan the executor runs:
 * a checkpoint just before the seed (so that none falls due during pgbench), the table
 * analyzed after it (as a table in use would be), and pgbench under the executor's plan pin,
 * checked by {@link FloorPlan}.
 */
final class SqlFloor {
    static final String SCHEMA = "drover_bench_floor";

    private SqlFloor() {
    }

    /**
     * One floor run and its cost per job; {@code plan} names the indexes each statement walks.
     * {@code when} says whether it ran before or after the matrix.
     */
    record Result(String variant, String when, long jobs, int clients, int batch, double seconds, double jobsPerSecond,
                  String plan, double walBytesPerJob, double databaseCpuMicrosPerJob, double commitsPerJob,
                  double jobsPerDatabaseCoreSecond) {
    }

    static Result run(DataSource dataSource, Database db, PostgresCpu postgres, FloorScript script, String when,
                      int jobs, int clients) throws Exception {
        seedAnalyzed(dataSource, jobs);
        String plan = FloorPlan.check(dataSource, script.explained());
        Path file = Files.createTempFile("drover-floor", ".sql");
        Files.writeString(file, script.pgbench());
        // Enough transactions to drain the table; the few that find it empty cost a round trip each.
        int perClient = (int) Math.ceil((double) jobs / script.batch() / clients) + 2;
        ProcessBuilder pb = new ProcessBuilder(List.of(pgbench(), "-n", "-c", Integer.toString(clients),
                "-j", Integer.toString(clients), "-t", Integer.toString(perClient), "-f", file.toString(),
                "-h", db.host(), "-p", Integer.toString(db.port()), "-U", db.user(), db.name()))
                .redirectErrorStream(true);
        pb.environment().put("PGPASSWORD", db.password());
        pb.environment().put("PGOPTIONS", FloorPlan.executorPinOptions(dataSource));
        double cpuStart = postgres.micros();
        String walStart = Wal.position(dataSource);
        long commitsStart = Commits.next(dataSource);
        long start = System.nanoTime();
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("pgbench failed:\n" + output);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double walBytes = Wal.bytesSince(dataSource, walStart);
        long commits = Commits.next(dataSource) - commitsStart;
        awaitBackendsGone(dataSource);
        double cpu = postgres.micros() - cpuStart;
        Files.delete(file);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select count(*) from " + SCHEMA + ".job")) {
            rs.next();
            if (rs.getLong(1) != 0) {
                throw new IllegalStateException("pgbench left " + rs.getLong(1) + " rows: raise the transaction count");
            }
        }
        double cpuPerJob = BenchResult.perJob(cpu, jobs);
        return new Result(script.name(), when, jobs, clients, script.batch(), BenchResult.round(seconds, 2),
                BenchResult.round(jobs / seconds, 1), plan, BenchResult.round(BenchResult.perJob(walBytes, jobs), 0),
                BenchResult.round(cpuPerJob, 1), BenchResult.round(BenchResult.perJob(commits, jobs), 4),
                BenchResult.round(BenchResult.perDatabaseCoreSecond(cpuPerJob), 0));
    }

    /** A fresh floor table of {@code jobs} due rows, analyzed, with no checkpoint due soon. */
    private static void seedAnalyzed(DataSource dataSource, int jobs) throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("drop schema if exists " + SCHEMA + " cascade");
        }
        Migrations.migrate(dataSource, SCHEMA);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            // Before the seed, not after: the first change of each page after a checkpoint logs the
            // whole page, which would add ~100 WAL bytes a job that the executor's runs do not pay.
            s.execute("checkpoint");
        }
        Seeder.seed(dataSource, SCHEMA, JobKind.parse("noop"), jobs);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("vacuum analyze " + SCHEMA + ".job");
        }
    }

    /**
     * Waits for pgbench's backends to exit: the postmaster then counts their CPU among its
     * children's, where {@link PostgresCpu} reads it, rather than in processes half gone.
     */
    private static void awaitBackendsGone(DataSource dataSource) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = s.executeQuery("select count(*) from pg_stat_activity"
                        + " where application_name = 'pgbench'")) {
                    rs.next();
                    if (rs.getLong(1) == 0) {
                        break;
                    }
                }
                Thread.sleep(20);
            }
        }
        // A backend leaves pg_stat_activity just before its process exits.
        Thread.sleep(100);
    }

    /** The PostgreSQL major of the whole project (root pom's embedded binaries, e2e/cluster/env.sh, make bench-deps). */
    static final String POSTGRES_MAJOR = "15";

    /**
     * pgbench of the project's PostgreSQL major (15, as the tests', the e2e cluster's and the
     * floor's server) if installed, else the first on the PATH or of another major.
     */
    static String pgbench() {
        File same = new File("/usr/lib/postgresql/" + POSTGRES_MAJOR + "/bin/pgbench");
        if (same.canExecute()) {
            return same.getPath();
        }
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
        throw new IllegalStateException("pgbench not found (Debian: apt-get install postgresql-" + POSTGRES_MAJOR + ")");
    }
}
