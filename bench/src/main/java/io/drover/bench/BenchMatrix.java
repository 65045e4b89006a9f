package io.drover.bench;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.acquire.LockMode;
import io.drover.bench.core.BenchResult;
import io.drover.executor.bench.Database;
import io.drover.executor.bench.JobKind;
import io.drover.executor.bench.Scenario;
import io.drover.executor.store.PooledDataSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code make bench}: every configuration against one PostgreSQL with identical settings,
 * plus the pgbench SQL floor before and after them, in one run, so the figures can be compared
 * as ratios. Writes {@code <out>/local.md}, {@code local.json} and {@code local.png}.
 */
final class BenchMatrix {
    static final int THREADS = 8;
    static final int QUEUE = 1024;

    private BenchMatrix() {
    }

    static List<Scenario> scenarios(boolean quick) {
        List<Scenario> list = new ArrayList<>();
        int noopJobs = quick ? 20_000 : 100_000;
        Duration cap = quick ? Duration.ofSeconds(60) : Duration.ofSeconds(180);
        List<Integer> pages = quick ? List.of(256) : List.of(1, 256, 512);
        List<Integer> nodeCounts = quick ? List.of(2) : List.of(1, 2);
        for (LockMode mode : LockMode.values()) {
            for (int page : pages) {
                for (int nodes : nodeCounts) {
                    list.add(new Scenario(JobKind.parse("noop"), noopJobs, nodes, mode, page, THREADS, QUEUE, cap));
                }
            }
        }
        list.add(new Scenario(JobKind.parse("sleep:100"), quick ? 4_000 : 20_000, 2, LockMode.SkipLocked, 256, 64,
                QUEUE, cap));
        return list;
    }

    /** Timers against no-op jobs: the same configuration, in rounds of one run of each (see run). */
    static Scenario pair(String kind, boolean quick) {
        return new Scenario(JobKind.parse(kind), quick ? 20_000 : 100_000, 2, LockMode.SkipLocked, 256, THREADS, QUEUE,
                quick ? Duration.ofSeconds(60) : Duration.ofSeconds(180));
    }

    static int run(Database db, MatrixOptions options) throws Exception {
        boolean quick = options.quick;
        Path out = options.out();
        Path jar = options.executorJar;
        Files.createDirectories(out);
        List<Scenario> scenarios = scenarios(quick);
        List<BenchReport.Row> rows = new ArrayList<>();
        List<SqlFloor.Result> floorRuns = new ArrayList<>();
        List<TimerRound> timerRounds = new ArrayList<>();
        Map<String, String> environment;
        List<IdleLatency.Result> idle;
        List<EnqueueBench.Result> enqueue;
        Instant started = Instant.now();
        try (AgroalDataSource ds = PooledDataSource.create(db.jdbcUrl(), db.user(), db.password(), 4)) {
            environment = environment(ds, options);
            PostgresCpu postgres = PostgresCpu.of(ds);
            int floorJobs = scenarios.get(0).jobs();
            List<Integer> floorPages = Floors.pages(scenarios.stream().filter(s -> s.kind().name().equals("noop"))
                    .map(Scenario::acquirePageSize).toList());
            floorRuns.addAll(floors(ds, db, postgres, "before", floorJobs, floorPages));
            for (Scenario s : scenarios) {
                runAndPrint(ds, db, s, 0, jar, postgres, rows);
            }
            // Timers and no-op jobs differ by one column here, so a single pair mostly measures
            // run-to-run noise on shared cores: rounds of one of each, back to back, the order
            // swapped every round so neither always runs second; the target is the median of
            // the rounds' ratios (a round's two runs share the machine's mood, distant runs do not).
            // These runs are the timer target's only: the page lists them apart, and the other
            // targets pick among the matrix's runs, where every configuration ran once.
            int rounds = quick ? 2 : 3;
            for (int round = 1; round <= rounds; round++) {
                boolean timerFirst = round % 2 == 0;
                BenchResult first = runAndPrint(ds, db, pair(timerFirst ? "timer" : "noop", quick), round, jar,
                        postgres, rows);
                BenchResult second = runAndPrint(ds, db, pair(timerFirst ? "noop" : "timer", quick), round, jar,
                        postgres, rows);
                timerRounds.add(timerFirst ? new TimerRound(first, second) : new TimerRound(second, first));
            }
            floorRuns.addAll(floors(ds, db, postgres, "after", floorJobs, floorPages));
            idle = IdleLatency.run(ds, db, jar, quick);
            enqueue = EnqueueBench.run(ds, db, postgres, jar, quick);
        }
        Floors floors = new Floors(floorRuns);
        environment.put("duration", Duration.between(started, Instant.now()).toSeconds() + " s");
        List<BenchResult> results = BenchReport.Row.matrix(rows);
        List<Target> targets = targets(results, floors, timerRounds);
        targets.addAll(idleTargets(idle));
        targets.forEach(t -> System.out.println(t.line()));

        String name = quick ? "local-quick" : "local";
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("environment", environment);
        doc.put("floor", floors.json());
        doc.put("results", results);
        doc.put("firstDrains", rows.stream().filter(r -> r.round() == 0).map(BenchReport.Row::firstDrain).toList());
        doc.put("timerRounds", timerRounds);
        doc.put("idleLatency", idle);
        doc.put("enqueue", enqueue);
        doc.put("targets", targets);
        Files.writeString(out.resolve(name + ".json"), BenchResult.JSON.writeValueAsString(doc));
        BarChart.write(out.resolve(name + ".png"), results, floors.fair().jobsPerSecond(),
                "Drover local benchmark (" + environment.get("machine") + ")");
        Files.writeString(out.resolve(name + ".md"), BenchReport.markdown(name, environment, floors, rows, targets,
                idle, enqueue));
        System.out.println("\nWrote " + out.resolve(name + ".md") + ", " + name + ".json and " + name + ".png");
        return 0;
    }

    /** Measures one configuration, its first drain then the measured one, and adds the row ({@code round} 0: the matrix's). */
    private static BenchResult runAndPrint(AgroalDataSource ds, Database db, Scenario s, int round, Path jar,
                                           PostgresCpu postgres, List<BenchReport.Row> rows) throws Exception {
        LocalFleet.Measured m = LocalFleet.measure(ds, db, "drover_bench", s, firstDrainJobs(s), jar,
                Path.of("target/bench-logs"), postgres);
        System.out.println(m.result().text());
        rows.add(new BenchReport.Row(round, m.result(), m.firstDrain()));
        return m.result();
    }

    /**
     * The jobs a configuration's fresh nodes drain before the measured drain: as many as it
     * measures, except where that would take minutes and the code it exercises is warm sooner
     * (page 1 runs a whole acquisition cycle per job; 100 ms jobs are bound by their sleep).
     */
    static int firstDrainJobs(Scenario s) {
        if (s.kind().sleepMillis() > 0) {
            return s.jobs() / 5;
        }
        return s.acquirePageSize() == 1 ? Math.min(s.jobs(), 10_000) : s.jobs();
    }

    /** Both variants of the SQL floor at each page size, on as many rows as the no-op runs drain. */
    private static List<SqlFloor.Result> floors(AgroalDataSource ds, Database db, PostgresCpu postgres, String when,
                                                int jobs, List<Integer> pages) throws Exception {
        List<SqlFloor.Result> runs = new ArrayList<>();
        for (int page : pages) {
            for (FloorScript script : List.of(FloorScript.twoCommit(SqlFloor.SCHEMA, page),
                    FloorScript.deleteOnly(SqlFloor.SCHEMA, page))) {
                System.out.println("== SQL floor " + script.name() + " (" + when + " the matrix): pgbench, " + Floors.CLIENTS
                        + " clients, pages of " + page + ", " + jobs + " rows");
                SqlFloor.Result r = SqlFloor.run(ds, db, postgres, script, when, jobs, Floors.CLIENTS);
                System.out.println(Floors.line(r) + "\n");
                runs.add(r);
            }
        }
        return runs;
    }

    /**
     * A target from the issue, computed from figures of this same run: a ratio that must reach
     * its goal, or ({@code atMost}) a figure such as a latency that must stay within it.
     */
    record Target(String name, double ratio, double goal, String detail, boolean atMost) {
        Target(String name, double ratio, double goal, String detail) {
            this(name, ratio, goal, detail, false);
        }

        boolean met() {
            return !Double.isNaN(ratio) && (atMost ? ratio < goal : ratio >= goal);
        }

        String goalText() {
            return String.format(atMost ? "< %.0f" : ">= %.2f", goal);
        }

        /** Ratios with three decimals: at two, a ratio just under its goal reads as the goal itself. */
        String measuredText() {
            return String.format(atMost ? "%.2f" : "%.3f", ratio);
        }

        /** The page's Targets section, local or in-cluster. */
        static String table(List<Target> targets) {
            StringBuilder md = new StringBuilder("## Targets (figures from this run)\n\n| target | measured | goal | | detail |\n"
                    + "|---|---|---|---|---|\n");
            for (Target t : targets) {
                md.append(String.format("| %s | %s | %s | %s | %s |%n", t.name(), t.measuredText(), t.goalText(),
                        t.met() ? "met" : "**missed**", t.detail()));
            }
            return md.toString();
        }

        String line() {
            return String.format("%s %s: %s (goal %s) %s", met() ? "MET " : "MISS", name, measuredText(), goalText(),
                    detail);
        }
    }

    /**
     * The idle-latency goals with NOTIFY on (as shipped), per lock mode: the worst p50 and p99 over
     * the arrival rates must stay under 10 and 50 ms. The p99's line also gives the producer's
     * slowest insert+commit at each rate: a job's delay counts from its insert, and no node can
     * start it before its commit, so a commit the database kept waiting shows as a late start.
     */
    static List<Target> idleTargets(List<IdleLatency.Result> idle) {
        List<Target> targets = new ArrayList<>();
        for (LockMode mode : LockMode.values()) {
            List<IdleLatency.Result> on = idle.stream().filter(r -> r.notifyOn() && r.lockMode().equals(mode.name()))
                    .toList();
            if (on.isEmpty()) {
                continue;
            }
            targets.add(worst("p50", mode, on, IdleLatency.Result::p50Ms, 10, ""));
            targets.add(worst("p99", mode, on, IdleLatency.Result::p99Ms, 50, "; the producer's slowest insert+commit: "
                    + each(on, IdleLatency.Result::insertMaxMs)));
        }
        return targets;
    }

    private static Target worst(String quantile, LockMode mode, List<IdleLatency.Result> runs,
                                java.util.function.ToDoubleFunction<IdleLatency.Result> figure, double goal,
                                String more) {
        IdleLatency.Result w = runs.stream().max(java.util.Comparator.comparingDouble(figure)).orElseThrow();
        return new Target("idle enqueue-to-start " + quantile + " ms, NOTIFY on, " + mode + ", 2 nodes",
                figure.applyAsDouble(w), goal, "(worst over the rates; " + each(runs, figure) + more + ")", true);
    }

    /** "1/s: 4.1, 10/s: 4.0, 100/s: 4.0 ms": a figure at each rate. */
    private static String each(List<IdleLatency.Result> runs, java.util.function.ToDoubleFunction<IdleLatency.Result> figure) {
        return runs.stream().map(r -> String.format("%.0f/s: %.1f", r.perSecond(), figure.applyAsDouble(r)))
                .collect(java.util.stream.Collectors.joining(", ")) + " ms";
    }

    static List<Target> targets(List<BenchResult> results, Floors floors, List<TimerRound> timerRounds) {
        List<Target> targets = new ArrayList<>();
        // Each run against the floor of its own page size (Floors): the best ratio stands.
        Optional<Floors.Compared> best2 = floors.bestTwoNodeNoop(results);
        best2.ifPresent(c -> targets.add(new Target("best 2-node no-op / two-commit SQL floor of the same page size",
                c.ratio(), 0.6, String.format("(%s: %,.0f vs %,.0f jobs/s)", c.run().label(), c.run().jobsPerSecond(),
                        c.floor().jobsPerSecond()))));
        best2.filter(c -> !Double.isNaN(c.run().databaseCpuMicrosPerJob()) && !Double.isNaN(c.floor().databaseCpuMicrosPerJob()))
                .ifPresent(c -> targets.add(new Target("database CPU per job: two-commit SQL floor / that run"
                        + " (>= 1: no higher than the floor's)", c.floor().databaseCpuMicrosPerJob()
                        / c.run().databaseCpuMicrosPerJob(), 1.0, String.format("(%.1f vs %.1f µs/job, page %d)",
                        c.run().databaseCpuMicrosPerJob(), c.floor().databaseCpuMicrosPerJob(), c.floor().batch()))));
        results.stream().filter(r -> r.kind().startsWith("sleep:")).findFirst().ifPresent(r -> targets.add(new Target(
                "100 ms jobs / theoretical max", r.percentOfTheoretical() / 100, 0.97,
                String.format("(%,.0f of %,.0f jobs/s)", r.jobsPerSecond(), r.theoreticalMaxPerSecond()))));
        timersOverNoops(timerRounds).ifPresent(targets::add);
        globalOverOptimistic(results).ifPresent(targets::add);
        return targets;
    }

    /**
     * Global against Optimistic at every page size and node count the run has both for: the
     * worst ratio decides, the others are in the detail.
     */
    static Optional<Target> globalOverOptimistic(List<BenchResult> results) {
        List<String> pairs = new ArrayList<>();
        double worst = Double.NaN;
        String worstPair = "";
        for (BenchResult g : results) {
            if (!g.kind().equals("noop") || !g.lockMode().equals("Global")) {
                continue;
            }
            Optional<BenchResult> o = find(results, "noop", "Optimistic", g.acquirePageSize(), g.threads(), g.nodes());
            if (o.isEmpty()) {
                continue;
            }
            double ratio = g.jobsPerSecond() / o.get().jobsPerSecond();
            String pair = String.format("page %d x %d: %.2f", g.acquirePageSize(), g.nodes(), ratio);
            pairs.add(pair);
            if (Double.isNaN(worst) || ratio < worst) {
                worst = ratio;
                worstPair = String.format("page %d, %d nodes: %,.0f vs %,.0f jobs/s", g.acquirePageSize(), g.nodes(),
                        g.jobsPerSecond(), o.get().jobsPerSecond());
            }
        }
        if (pairs.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Target("Global / Optimistic, the worst page size and node count", worst, 1.0,
                "(" + worstPair + "; every pair: " + String.join(", ", pairs) + ")"));
    }

    /** One round of the timer comparison: a timer run and a no-op run of the same configuration, back to back. */
    record TimerRound(BenchResult timer, BenchResult noop) {
        double ratio() {
            return timer.jobsPerSecond() / noop.jobsPerSecond();
        }
    }

    /** Due timers against no-op jobs: the median of the rounds' ratios, each round's runs in the detail. */
    static Optional<Target> timersOverNoops(List<TimerRound> rounds) {
        if (rounds.isEmpty()) {
            return Optional.empty();
        }
        String each = rounds.stream().map(r -> String.format("%.2f (%,.0f vs %,.0f)", r.ratio(), r.timer().jobsPerSecond(),
                r.noop().jobsPerSecond())).collect(java.util.stream.Collectors.joining(", "));
        BenchResult config = rounds.get(0).timer();
        return Optional.of(new Target("due timers / no-op jobs (median of back-to-back rounds)",
                median(rounds.stream().map(TimerRound::ratio).toList()), 0.9,
                String.format("(%d rounds of a timer and a no-op run, %s page=%d nodes=%d, %,d jobs each;"
                                + " timer / no-op jobs/s per round: %s)", rounds.size(), config.lockMode(),
                        config.acquirePageSize(), config.nodes(), config.jobs(), each)));
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** The run of that configuration (the first, if it ran more than once). */
    static Optional<BenchResult> find(List<BenchResult> results, String kind, String mode, int page, int threads,
                                      int nodes) {
        return results.stream().filter(r -> r.kind().equals(kind) && r.lockMode().equals(mode)
                && r.acquirePageSize() == page && r.threads() == threads && r.nodes() == nodes).findFirst();
    }

    private static Map<String, String> environment(AgroalDataSource ds, MatrixOptions options) throws Exception {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("date", Instant.now().toString());
        env.put("command", options.command);
        env.put("revision", options.revision);
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select version(), current_setting('shared_buffers'),"
                     + " current_setting('fsync'), current_setting('synchronous_commit')")) {
            rs.next();
            env.put("postgres", rs.getString(1).replaceAll(" on x86_64.*", "")
                    + " (shared_buffers " + rs.getString(2) + ", fsync " + rs.getString(3)
                    + ", synchronous_commit " + rs.getString(4) + ")");
        }
        env.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        env.put("machine", Runtime.getRuntime().availableProcessors() + " cores, " + memory() + ", " + cpu());
        // The nodes' JVM flags as LocalFleet starts them (not a description of them): a build
        // without the JIT directives runs without, and the page says so.
        List<String> command = LocalFleet.command(options.executorJar);
        String flags = String.join(" ", command.subList(1, command.indexOf("-jar")))
                .replaceAll("CompilerDirectivesFile=\\S*/", "CompilerDirectivesFile=");
        env.put("settings", "threads " + THREADS + " (64 for sleep jobs), queueSize " + QUEUE
                + ", lockExpiry 60s, executor nodes as separate JVMs (`java " + flags + "`) on the same"
                + " machine as PostgreSQL");
        return env;
    }

    private static String memory() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    return (kb / 1024 / 1024) + " GiB";
                }
            }
        } catch (Exception ignored) {
            // not Linux
        }
        return "? GiB";
    }

    private static String cpu() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (Exception ignored) {
            // not Linux
        }
        return "unknown CPU";
    }
}
