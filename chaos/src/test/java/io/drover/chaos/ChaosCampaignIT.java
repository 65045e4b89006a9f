package io.drover.chaos;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault campaign ({@code make chaos}): the packaged executor service as separate processes,
 * three nodes per scenario draining 2,000 jobs of 100 ms on a real PostgreSQL, a fault in the
 * middle, every start and finish counted by job id by an external receiver. Each scenario
 * passes with 0 jobs lost, 0 jobs dead-lettered without having run (poison aside, with the right
 * reason), duplicates only among jobs the faulted node was running as the fault hit (as
 * {@link Accounting} decides; none when the database alone was faulted), and every node ready
 * and draining afterwards with no help but what Kubernetes gives (restart on exit or failed
 * liveness). The table of results goes into docs/reliability.md.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChaosCampaignIT {
    static final Duration LOCK_EXPIRY = Duration.ofSeconds(10);
    static final int JOBS = 2000;
    static final String JOB_MILLIS = "100";
    static final Map<String, String> SETTINGS = Map.of("lockExpiry", "10s", "threads", "4", "queueSize", "200",
            "acquirePageSize", "100", "shutdownGracePeriod", "5s", "retryBackoff", "200ms");

    static Campaign campaign;
    static final List<Report.Row> rows = new ArrayList<>();
    static int schemas;

    @BeforeAll
    static void start() throws Exception {
        Path work = Path.of(System.getProperty("chaos.workDir", "target/chaos"));
        Files.createDirectories(work);
        Path handlers = Files.createDirectories(work.resolve("handlers"));
        Files.copy(Path.of(System.getProperty("chaos.handlerJar")), handlers.resolve("chaos-handler.jar"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Database database = new Database(Files.createTempDirectory(work, "pg"), 15_432 + (int) (ProcessHandle.current().pid() % 1000));
        database.start();
        campaign = new Campaign(database, new Receiver(), Path.of(System.getProperty("chaos.executorJar")), handlers, work);
    }

    @AfterAll
    static void stop() throws Exception {
        Report.write(rows, Path.of(System.getProperty("chaos.report", "target/chaos/reliability.md")),
                campaign.workDir().resolve("report.md"));
        campaign.receiver().close();
        campaign.database().close();
    }

    /** What the scenario does to the fleet. */
    interface Action {
        void inject(Fleet fleet) throws Exception;
    }

    /**
     * What the fault must be seen to have done, checked after the accounting: a fault that never
     * took effect (a signal that missed, a proxy that passed everything) would pass its scenario
     * on the accounting alone, and so would a fault that did more than it should (a node its
     * supervisor had to restart that nothing killed).
     */
    interface Effect {
        void check(Fleet fleet, List<Receiver.Event> events, Accounting.Fault fault, Accounting a) throws Exception;

        default Effect and(Effect next) {
            return (fleet, events, fault, a) -> {
                check(fleet, events, fault, a);
                next.check(fleet, events, fault, a);
            };
        }
    }

    /** The supervisor restarted each named node once, for the SIGKILL it was given, and no other node at all. */
    static Effect killedOnce(String... victims) {
        List<String> killed = List.of(victims);
        return (fleet, events, fault, a) -> {
            for (ExecutorNode n : fleet.nodes()) {
                assertThat(n.events()).as(n.label() + ": what its supervisor had to do")
                        .isEqualTo(killed.contains(n.label()) ? List.of("exited with 137; restarting") : List.of());
            }
        };
    }

    /** No node restarted: nothing killed one, and none failed liveness (a database fault never restarts a node). */
    static final Effect NO_RESTART = killedOnce();

    /** The faulted node was running jobs as the fault hit: some ran again elsewhere (as the accounting allows). */
    static final Effect CUT_SHORT = (fleet, events, fault, a) -> assertThat(a.duplicates())
            .as("jobs the fault cut short on " + fault.node() + ", run again").isNotEmpty();

    /**
     * No run started on the matching nodes from {@code after} into the fault until {@code before}
     * its end: the fault really kept them from the database (every lease a node holds was taken by
     * a statement sent before the fault, so none outlives lockExpiry into it).
     */
    static Effect noStarts(Predicate<String> nodes, Duration after, Duration before, String why) {
        return (fleet, events, fault, a) -> assertThat(events).filteredOn(e -> e.kind().equals("start") && nodes.test(e.node())
                        && e.nanos() > fault.start() + after.toNanos() && e.nanos() < fault.end() - before.toNanos())
                .as(why).isEmpty();
    }

    /**
     * The woken node starts none of the jobs another node took over while it was stopped: a
     * SIGSTOPped JVM runs nothing, so the moment that counts is its thaw, when its queue holds
     * jobs whose leases ran out under it (it must drop them, unstarted).
     */
    static Effect noStaleStarts(String node) {
        return (fleet, events, fault, a) -> {
            java.util.Set<Long> takenOver = events.stream().filter(e -> e.kind().equals("start") && !node.equals(e.node())
                    && e.nanos() > fault.start()).map(Receiver.Event::job).collect(java.util.stream.Collectors.toSet());
            assertThat(events).filteredOn(e -> e.kind().equals("start") && node.equals(e.node()) && e.nanos() > fault.end()
                    && takenOver.contains(e.job())).as("jobs " + node + " started after its thaw that another node took over"
                    + " while it was stopped").isEmpty();
        };
    }

    /** Where a database fault lets no node start a job: from a lease's length (and a report's latency) into it. */
    static final Effect NO_START_WITHOUT_DATABASE = noStarts(node -> true, LOCK_EXPIRY.plusSeconds(1), Duration.ofSeconds(1),
            "jobs started while the database was away");

    private static Fleet fleet(String lockMode, Map<String, String> extra, String... labels) throws Exception {
        Fleet fleet = new Fleet(campaign.database(), "chaos_" + (++schemas));
        Map<String, String> settings = new LinkedHashMap<>(SETTINGS);
        settings.put("lockMode", lockMode);
        settings.putAll(extra);
        for (String label : labels) {
            fleet.start(label, label.contains("/") ? label.substring(label.indexOf('/') + 1) : label, settings, campaign);
        }
        fleet.awaitReady(Duration.ofMinutes(2));
        return fleet;
    }

    /**
     * Seeds the jobs, waits until a fifth of them finished, injects the fault, waits for the
     * drain, then checks that every node is ready and that fresh jobs still drain.
     */
    /**
     * A node fault's window after it began: a job the engine started just before it reaches its
     * handler's start report (the run's stamp, {@link Receiver.Event}) a moment later.
     */
    private static final Duration REPORT_LATENCY = Duration.ofSeconds(1);

    private static Accounting run(String scenario, String fault, String lockMode, Fleet fleet, String faultedNode,
                                  Action action, Effect effect) throws Exception {
        return run(scenario, fault, lockMode, fleet, faultedNode, REPORT_LATENCY, action, effect);
    }

    /**
     * Seeds the jobs, waits until a fifth of them finished, injects the fault, waits for the
     * drain, then checks that every node is ready and that fresh jobs still drain.
     *
     * @param detection how long after the fault began the faulted node may still start jobs it
     *                  will not finish: the time a fault that only a timeout reveals stays unseen
     * @param effect    what the fault must be seen to have done
     */
    private static Accounting run(String scenario, String fault, String lockMode, Fleet fleet, String faultedNode,
                                  Duration detection, Action action, Effect effect) throws Exception {
        campaign.receiver().clear();
        long t0 = System.nanoTime();
        List<Long> jobs = fleet.insert(JOBS, "chaos", JOB_MILLIS, 3);
        long faultStart = t0;
        long faultEnd = t0;
        boolean began = false;
        try {
            Fleet.await("a fifth of the jobs finished", Duration.ofMinutes(2), () -> campaign.receiver().events()
                    .stream().filter(e -> e.kind().equals("finish")).count() >= JOBS / 5);
            faultStart = System.nanoTime();
            began = true;
            action.inject(fleet);
            faultEnd = System.nanoTime();
            Fleet.await("the jobs drained", Duration.ofMinutes(3), fleet.sql("select count(*) from {s}.job", 0));
        } catch (AssertionError e) {
            System.out.println("[chaos] " + scenario + " (" + lockMode + "): " + e.getMessage()); // the accounting says what
        } catch (Exception e) {
            fleet.close(); // a fault that could not be injected: no fleet left running beside the next scenarios
            throw e;
        }
        Accounting.Fault f = new Accounting.Fault(faultStart, faultEnd, faultedNode, detection.toNanos());
        Accounting a = finish(scenario, fault, lockMode, fleet, jobs, Map.of(), f,
                Duration.ofNanos(System.nanoTime() - Math.max(faultEnd, t0)));
        // A fleet that never finished a fifth of its jobs never met the fault: the accounting
        // alone would pass it if the jobs drained meanwhile.
        boolean injected = began;
        checked(() -> {
            assertThat(injected).as(scenario + " (" + lockMode + "): the fault was injected").isTrue();
            effect.check(fleet, campaign.receiver().events(), f, a);
        });
        return a;
    }

    /** A check of the scenario after its accounting: if it fails, the scenario's row on the page says so too. */
    private static void checked(Check check) throws Exception {
        try {
            check.run();
        } catch (AssertionError e) {
            synchronized (rows) {
                rows.set(rows.size() - 1, rows.get(rows.size() - 1).failing(String.valueOf(e.getMessage())));
            }
            throw e;
        }
    }

    interface Check {
        void run() throws Exception;
    }

    private static Accounting finish(String scenario, String fault, String lockMode, Fleet fleet, List<Long> jobs,
                                     Map<Long, Predicate<String>> poison, Accounting.Fault f, Duration recovered)
            throws Exception {
        try {
            return account(scenario, fault, lockMode, fleet, jobs, poison, f, recovered);
        } finally {
            fleet.close();
        }
    }

    private static Accounting account(String scenario, String fault, String lockMode, Fleet fleet, List<Long> jobs,
                                      Map<Long, Predicate<String>> poison, Accounting.Fault f, Duration recovered)
            throws Exception {
        // No node may be left wedged: all ready again, and fresh jobs drain, with no help.
        boolean ready = true;
        try {
            fleet.awaitReady(Duration.ofMinutes(2));
        } catch (AssertionError e) {
            ready = false;
        }
        List<Long> probe = fleet.insert(30, "chaos", "10", 3);
        boolean probeDrained = true;
        try {
            Fleet.await("fresh jobs drain after the fault", Duration.ofMinutes(2),
                    fleet.sql("select count(*) from {s}.job where id >= " + probe.get(0), 0));
        } catch (AssertionError e) {
            probeDrained = false;
        }
        Map<Long, String> deadLetters = fleet.deadLetters();
        java.util.Set<Long> inTable = Accounting.ids(fleet.ids("select id from " + fleet.schema() + ".job"));
        Accounting a = Accounting.of(jobs, poison, deadLetters, inTable, campaign.receiver().events(), f);
        // The fresh jobs by id too: a node back from the fault that dropped, dead-lettered or ran
        // twice what it took next would empty the table as well.
        Accounting fresh = Accounting.of(probe, Map.of(), deadLetters, inTable, campaign.receiver().events(), f);
        int restarts = fleet.nodes().stream().mapToInt(ExecutorNode::restarts).sum();
        Report.Row row = new Report.Row(scenario, fault, lockMode, jobs.size(), a, restarts,
                Duration.ofNanos(f.end() - f.start()), recovered, ready && probeDrained);
        rows.add(row);
        System.out.println("[chaos] " + row.markdown());
        assertThat(a.lost()).as(scenario + ": jobs lost").isEmpty();
        assertThat(a.left()).as(scenario + ": jobs still in the table after the drain").isEmpty();
        assertThat(a.deadWithoutRun()).as(scenario + ": ordinary jobs dead-lettered").isEmpty();
        assertThat(a.unexplainedDuplicates()).as(scenario + ": duplicates the fault does not explain").isEmpty();
        assertThat(a.wrongPoisonReasons()).as(scenario + ": poison jobs and their reasons").isEmpty();
        assertThat(ready).as(scenario + ": every node ready after the fault").isTrue();
        assertThat(probeDrained).as(scenario + ": fresh jobs drain after the fault").isTrue();
        assertThat(fresh.lost()).as(scenario + ": fresh jobs lost").isEmpty();
        assertThat(fresh.deadWithoutRun()).as(scenario + ": fresh jobs dead-lettered").isEmpty();
        assertThat(fresh.duplicates()).as(scenario + ": fresh jobs run twice").isEmpty();
        return a;
    }

    private static final String[] THREE = {"node-0", "node-1", "node-2"};
    /** A fault of the database alone: no node was hit, so no job may run twice. */
    private static final String NO_NODE = Accounting.NO_NODE;

    @Test
    @Order(1)
    void killMinus9SkipLocked() throws Exception {
        killMinus9("SkipLocked");
    }

    @Test
    @Order(2)
    void killMinus9Global() throws Exception {
        killMinus9("Global");
    }

    @Test
    @Order(3)
    void killMinus9Optimistic() throws Exception {
        killMinus9("Optimistic");
    }

    private void killMinus9(String lockMode) throws Exception {
        Fleet fleet = fleet(lockMode, Map.of(), THREE);
        run("kill -9 under load", "SIGKILL of node-1 (restarted like a pod's container)", lockMode, fleet, "node-1",
                f -> f.node("node-1").kill9(), killedOnce("node-1").and(CUT_SHORT));
    }

    @Test
    @Order(4)
    void frozenPastLockExpiry() throws Exception {
        Fleet fleet = fleet("Global", Map.of(), THREE);
        run("node frozen past lockExpiry", "SIGSTOP of node-1 for 2 x lockExpiry (20 s), then SIGCONT", "Global",
                fleet, "node-1", f -> {
                    try {
                        f.node("node-1").freeze();
                        Thread.sleep(LOCK_EXPIRY.toMillis() * 2);
                    } finally {
                        f.node("node-1").thaw();
                    }
                }, NO_RESTART.and(CUT_SHORT).and(noStaleStarts("node-1")));
    }

    @Test
    @Order(5)
    void postgresRestart() throws Exception {
        Fleet fleet = fleet("SkipLocked", Map.of(), THREE);
        long[] servers = new long[2];
        run("PostgreSQL restart", "fast shutdown and start of the server", "SkipLocked", fleet, NO_NODE, f -> {
            servers[0] = campaign.database().postmaster();
            campaign.database().stop();
            campaign.database().start();
            servers[1] = campaign.database().postmaster();
        }, NO_RESTART.and((fl, events, fault, a) -> assertThat(servers[1]).as("the server's process after the restart")
                .isNotEqualTo(servers[0])));
    }

    @Test
    @Order(6)
    void postgresDownTwiceLockExpiry() throws Exception {
        Fleet fleet = fleet("SkipLocked", Map.of(), THREE);
        run("PostgreSQL down", "server stopped for 2 x lockExpiry (20 s)", "SkipLocked", fleet, NO_NODE, f -> {
            campaign.database().stop();
            Thread.sleep(LOCK_EXPIRY.toMillis() * 2);
            campaign.database().start();
        }, NO_RESTART.and(NO_START_WITHOUT_DATABASE));
    }

    @Test
    @Order(7)
    void nodeStartingWhilePostgresIsDown() throws Exception {
        Fleet fleet = fleet("SkipLocked", Map.of(), THREE);
        int[] restartsWhileDown = new int[1];
        run("a node starts while PostgreSQL is down", "server stopped for 2 x lockExpiry (20 s); node-2 killed"
                + " 2 s into it, so it starts while the database is away", "SkipLocked", fleet, "node-2", f -> {
                    campaign.database().stop();
                    Thread.sleep(2000);
                    f.node("node-2").kill9();
                    Thread.sleep(LOCK_EXPIRY.toMillis() * 2 - 2000);
                    restartsWhileDown[0] = f.node("node-2").restarts();
                    campaign.database().start();
                }, killedOnce("node-2").and(NO_START_WITHOUT_DATABASE).and((fl, events, fault, a) ->
                        assertThat(restartsWhileDown[0]).as("node-2 started again while the database was down").isEqualTo(1)));
    }

    @Test
    @Order(8)
    void postgresFrozen() throws Exception {
        Fleet fleet = fleet("SkipLocked", Map.of(), THREE);
        // Nodes that have run long enough to sweep expired locks (a node holds its first sweep back
        // for 15 s after it starts), as a fleet's nodes have when the database stalls.
        Thread.sleep(20_000);
        // Every node's calls time out (lockExpiry/2); the requests sent meanwhile run when the
        // server is thawed, with its clock past every lease that was not renewed during the freeze.
        run("PostgreSQL frozen", "every server process stopped (SIGSTOP) for 2 x lockExpiry (20 s), then SIGCONT:"
                + " sessions stay open, requests sent meanwhile run late", "SkipLocked", fleet, NO_NODE, f -> {
                    try {
                        campaign.database().freeze();
                        Thread.sleep(LOCK_EXPIRY.toMillis() * 2);
                    } finally {
                        campaign.database().thaw();
                    }
                }, NO_RESTART.and(NO_START_WITHOUT_DATABASE));
    }

    @Test
    @Order(9)
    void halfOpenConnections() throws Exception {
        Fleet fleet = fleet("Global", Map.of(), THREE);
        // A node finds a half-open connection out only when a call times out, or when a batch of
        // outcomes has been stuck for a second: the jobs it starts until then may run twice.
        run("half-open connections", "node-1's connections black-holed for 2 x lockExpiry (no RST; the server"
                + " drops its side after 10 s, as keepalive would; the node's side never recovers), then new"
                + " connections pass", "Global", fleet, "node-1", Duration.ofSeconds(3), f -> {
                    f.proxy("node-1").blackHole(Duration.ofSeconds(10));
                    Thread.sleep(LOCK_EXPIRY.toMillis() * 2);
                    f.proxy("node-1").heal();
                }, NO_RESTART.and(CUT_SHORT).and(noStarts("node-1"::equals, LOCK_EXPIRY.plusSeconds(3).plus(REPORT_LATENCY),
                        Duration.ofSeconds(1), "jobs node-1 started through its dead connections after its leases ran out")));
    }

    @Test
    @Order(10)
    void poisonJobs() throws Exception {
        Fleet fleet = fleet("SkipLocked", Map.of("jobTimeout", "5s"), THREE);
        campaign.receiver().clear();
        long t0 = System.nanoTime();
        Map<Long, Predicate<String>> poison = new LinkedHashMap<>();
        for (long id : fleet.ids("insert into " + fleet.schema() + ".job (type, payload, due_at)"
                + " select 'chaos', '10', '1700-01-01 00:00:00+00' from generate_series(1, 5) returning id")) {
            poison.put(id, e -> e.startsWith("dueAt is out of range"));
        }
        long exit = fleet.insert(1, "chaos", "exit", 3).get(0);
        poison.put(exit, e -> e.startsWith("poison: 3 executor nodes died while running it"));
        long hang = fleet.insert(1, "chaos", "hang", 2).get(0);
        poison.put(hang, e -> e.startsWith("failed 2 of 2 attempts; last error: timed out after PT5S"));
        for (long id : fleet.ids("insert into " + fleet.schema() + ".job (type, payload)"
                + " values ('chaos', repeat('9', 5000000)) returning id")) {
            poison.put(id, e -> e.startsWith("payload is too large"));
        }
        for (long id : fleet.ids("insert into " + fleet.schema() + ".job (type, payload, repeat_interval)"
                + " values ('chaos', '10', interval '1000000 years') returning id")) {
            poison.put(id, e -> e.startsWith("repeat interval is out of range"));
        }
        List<Long> jobs = fleet.insert(1000, "chaos", JOB_MILLIS, 3);
        try {
            Fleet.await("ordinary jobs done and poison dead-lettered", Duration.ofMinutes(4),
                    fleet.sql("select count(*) from {s}.job", 0));
        } catch (AssertionError e) {
            System.out.println("[chaos] poison jobs: " + e.getMessage());
        }
        long end = System.nanoTime();
        // The faults last the whole run: "drained in" is the whole run. The node a poison job
        // kills stops gracefully (System.exit) or is a hung worker: no ordinary job may run twice.
        Accounting a = finish("poison jobs", "due in 1700 (5), a handler that calls System.exit, one that hangs ignoring"
                        + " interrupts (jobTimeout 5s), a 5 MB payload, a recurring timer of 1,000,000 years", "SkipLocked",
                fleet, jobs, poison, new Accounting.Fault(t0, end, NO_NODE, 0), Duration.ofNanos(end - t0));
        // What each poison job cost: the node-killer ran on maxCrashes + 1 nodes (its first run is
        // not watched: the node that dies of it is a crash of unknown cause; the three watched runs
        // after it are the crashes counted), each of them a node restart and no other; the hung
        // job ran its two attempts (and again where a node death cut a run short); the others
        // never reached a handler. (No ordinary job ran twice:
        // a fault of no node explains no duplicate.)
        Map<Long, Long> starts = campaign.receiver().events().stream().filter(e -> e.kind().equals("start"))
                .collect(java.util.stream.Collectors.groupingBy(Receiver.Event::job, java.util.stream.Collectors.counting()));
        checked(() -> {
            assertThat(starts.getOrDefault(exit, 0L)).as("runs of the job that ends its node's JVM").isEqualTo(4);
            assertThat(fleet.nodes().stream().mapToInt(ExecutorNode::restarts).sum()).as("nodes the poison jobs ended").isEqualTo(4);
            // Each of them the node-killer's doing: its exit with its status, or a liveness kill of
            // the exiting node. The stop waits neither for the run that called exit (it cannot end)
            // nor for the workers waiting at the gate behind its solo run, but it does give another
            // running job its grace: the job that ignores its interrupt takes 5 s and a second, and
            // with the HTTP server already closed the probes (9 s) may end such a node first
            // (docs/reliability.md). Never a startup probe's kill.
            assertThat(fleet.nodes().stream().flatMap(n -> n.events().stream())
                    .filter(e -> !e.startsWith("exited with 3;") && !e.contains("liveness")))
                    .as("node restarts other than the node-killer's").isEmpty();
            // The hung job's node may be one the node-killer ends: a run cut short so is run again, uncharged.
            assertThat(starts.getOrDefault(hang, 0L)).as("runs of the job that hangs ignoring interrupts: its 2 attempts,"
                    + " and one more for each node death that cut one short").isBetween(2L, 2L + 4);
            for (long id : poison.keySet()) {
                if (id != exit && id != hang) {
                    assertThat(starts.getOrDefault(id, 0L)).as("runs of poison job " + id + ", refused before its handler").isZero();
                }
            }
        });
    }

    @Test
    @Order(11)
    void twoClustersWithTheSamePodNames() throws Exception {
        Fleet fleet = fleet("SkipLocked", Map.of(), "A/executor-0", "A/executor-1", "A/executor-2",
                "B/executor-0", "B/executor-1", "B/executor-2");
        run("two clusters, same pod names, one schema", "SIGKILL of B/executor-1 while A/executor-1 lives",
                "SkipLocked", fleet, "B/executor-1", f -> f.node("B/executor-1").kill9(),
                killedOnce("B/executor-1").and(CUT_SHORT));
    }
}
