package io.drover.executor.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.agroal.api.AgroalDataSource;
import io.drover.executor.acquire.LockMode;
import io.drover.executor.config.Durations;
import io.drover.executor.store.Migrations;
import io.drover.executor.store.PooledDataSource;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;

/**
 * The benchmark tool, in the executor image: {@code java -jar quarkus-run.jar bench <command>}.
 * <ul>
 *   <li>{@code run}: seed one scenario and watch a fleet drain it; with {@code --executor-jar}
 *   it starts {@code --nodes} local executor processes itself, otherwise it measures the
 *   running fleet whose metrics endpoints are given in {@code --metrics-urls}.</li>
 *   <li>{@code matrix}: the local benchmark matrix behind {@code make bench}; see
 *   {@link BenchMatrix}.</li>
 * </ul>
 * Prints human text and writes the result JSON ({@code --json=FILE}, or to stdout after the
 * text).
 */
public final class BenchMain {
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private BenchMain() {
    }

    public static int run(String[] argv) {
        if (argv.length == 0 || argv[0].equals("help") || argv[0].equals("--help")) {
            System.out.println(usage());
            return argv.length == 0 ? 2 : 0;
        }
        try {
            Args args = new Args(Arrays.copyOfRange(argv, 1, argv.length));
            return switch (argv[0]) {
                case "run" -> runOne(args);
                case "matrix" -> BenchMatrix.run(args);
                case "report" -> ClusterReport.run(args);
                default -> {
                    System.err.println("unknown bench command '" + argv[0] + "'\n" + usage());
                    yield 2;
                }
            };
        } catch (IllegalArgumentException e) {
            System.err.println("bench: " + e.getMessage() + "\n" + usage());
            return 2;
        } catch (Exception e) {
            System.err.println("bench failed: " + e);
            e.printStackTrace();
            return 1;
        }
    }

    static Database database(Args args) {
        String password = args.get("password", System.getenv().getOrDefault("PGPASSWORD", ""));
        return new Database(args.required("jdbc-url"), args.get("user", "postgres"), password);
    }

    static Scenario scenario(Args args) {
        return new Scenario(JobKind.parse(args.get("kind", "noop")), args.integer("jobs", 100_000),
                args.integer("nodes", 2), LockMode.parse(args.get("lockMode", "SkipLocked")),
                args.integer("acquirePageSize", 256), args.integer("threads", 8), args.integer("queueSize", 1024),
                Durations.parse("--timeout", args.get("timeout", "600s")));
    }

    private static int runOne(Args args) throws Exception {
        Database db = database(args);
        Scenario scenario = scenario(args);
        String schema = args.get("schema", "drover_bench");
        BenchResult result;
        try (AgroalDataSource ds = PooledDataSource.create(db.jdbcUrl(), db.user(), db.password(), 4)) {
            if (args.has("executor-jar")) {
                result = runLocal(ds, db, schema, scenario, Path.of(args.required("executor-jar")),
                        Path.of(args.get("logs", "target/bench-logs")));
            } else {
                Migrations.migrate(ds, schema);
                List<URI> metrics = Arrays.stream(args.get("metrics-urls", "").split(","))
                        .filter(s -> !s.isBlank()).map(URI::create).toList();
                System.out.println("Seeding " + scenario.jobs() + " jobs into the running fleet (" + schema + ") ...");
                result = BenchRun.run(ds, schema, scenario, metrics, System.out::println);
            }
        }
        System.out.print(result.text());
        String json = JSON.writeValueAsString(result);
        if (args.has("json")) {
            Files.writeString(Path.of(args.get("json", "")), json);
        } else {
            System.out.println(json);
        }
        return 0;
    }

    /** Fresh schema, N fresh executor processes started before the seed, stopped after. */
    static BenchResult runLocal(AgroalDataSource ds, Database db, String schema, Scenario scenario, Path executorJar,
                                Path logs) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("drop schema if exists " + schema + " cascade");
        }
        Migrations.migrate(ds, schema);
        System.out.println("== " + scenario.label() + ": starting " + scenario.nodes() + " executor nodes ...");
        try (LocalFleet fleet = LocalFleet.start(executorJar, db, schema, scenario, logs)) {
            return BenchRun.run(ds, schema, scenario, fleet.metricsUrls(), System.out::println);
        }
    }

    static String usage() {
        return """
                usage: bench run --jdbc-url=URL [--user=postgres] [--password=... (or PGPASSWORD)] [--schema=drover_bench]
                                 [--kind=noop|sleep:<ms>|timer|timer:<window>] [--jobs=100000]
                                 [--lockMode=SkipLocked] [--acquirePageSize=256] [--threads=8] [--queueSize=1024]
                                 [--nodes=2] [--timeout=600s] [--json=FILE]
                                 (--executor-jar=PATH to start the nodes here | --metrics-urls=URL,... of a running fleet)
                       bench matrix --jdbc-url=URL --executor-jar=PATH [--out=docs/benchmarks] [--quick]
                       bench report --results=DIR --out=docs/benchmarks/cluster [--title=...] [--command=...] [--cluster=...]
                                 (the page and chart of in-cluster runs: every *.json result in DIR)
                """;
    }
}
