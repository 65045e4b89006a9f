package io.drover.e2e;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static io.drover.e2e.Kube.log;
import static io.drover.e2e.Kube.nz;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fleet in trouble, on a real cluster with real KEDA: a scale-down under long jobs, the
 * database stopped under an autoscaled fleet, the operator away while a node dies, evictions
 * through the PDB, a job that makes its pod run out of memory. The executors run the e2e image
 * (the executor plus the fault campaign's {@code chaos} handler), whose jobs report every start
 * and every finish to {@link ExecutionReceiver}: each scenario is accounted by job id
 * ({@link Runs}): 0 lost, 0 cut short where stated, no job run twice except where a pod was
 * killed, and then only jobs it was running as it died ({@link Runs.Kill}). Figures go to the
 * log ({@code [e2e] ...}) and docs/reliability.md.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FleetFaultsE2E {
    static final String NS = "drover-faults";

    static E2EEnvironment env;
    static KubernetesClient client;
    static Kube kube;
    static ExecutionReceiver receiver;
    static String schemaPrefix;
    static final FaultReport report = new FaultReport();

    /** A scenario that fails before its row still gets one, marked FAIL with its cause. */
    @org.junit.jupiter.api.extension.RegisterExtension
    static final org.junit.jupiter.api.extension.TestWatcher unfinished = new org.junit.jupiter.api.extension.TestWatcher() {
        @Override
        public void testFailed(org.junit.jupiter.api.extension.ExtensionContext context, Throwable cause) {
            report.failedWithoutRow(context.getRequiredTestMethod().getName(), cause);
        }
    };

    @org.junit.jupiter.api.BeforeEach
    void newScenario() {
        report.begin();
    }

    @BeforeAll
    static void setUp() throws Exception {
        env = E2EEnvironment.fromEnv();
        client = new KubernetesClientBuilder().build();
        kube = new Kube(env, client);
        receiver = new ExecutionReceiver(env.receiverHost());
        schemaPrefix = "f_" + UUID.randomUUID().toString().substring(0, 6);
        kube.freshNamespaceWithOperator(NS);
        log("fleet faults: namespace " + NS + ", image " + env.chaosImage() + ", receiver " + receiver.base());
    }

    @AfterAll
    static void tearDown() throws Exception {
        report.write(env.repo().resolve("docs/reliability.md"));
        if (client != null) {
            client.namespaces().withName(NS).delete();
            // The operator stays for later suites; DroverE2E's last step uninstalls it.
        }
        if (receiver != null) {
            receiver.close();
        }
    }

    /** An ExecutorCluster running the chaos handler (fixtures/chaos-cluster.yaml). */
    static ClusterFixture cluster(String name, int replicas) {
        return ClusterFixture.load("chaos-cluster.yaml").named(name, NS)
                .set("image", env.chaosImage()).set("replicas", replicas).set("schema", schema(name))
                .set("database.host", env.dbHost()).set("database.port", env.dbPort())
                .env("CHAOS_RECEIVER", receiver.base());
    }

    static String schema(String cluster) {
        return schemaPrefix + "_" + cluster;
    }

    static JobTable table(String cluster) {
        return new JobTable(env, schema(cluster));
    }

    static void awaitFinished(JobTable jobs, List<Long> ids, Set<Long> exempt, Duration timeout) {
        await(ids.size() + " jobs finished").atMost(timeout).pollInterval(Duration.ofSeconds(2)).until(() -> {
            Set<Long> finished = receiver.events().stream().filter(e -> e.kind().equals("finish"))
                    .map(ExecutionReceiver.Event::job).collect(Collectors.toSet());
            synchronized (ids) {
                return ids.stream().allMatch(id -> exempt.contains(id) || finished.contains(id));
            }
        });
    }

    static void delete(String cluster) {
        kube.kubectl("delete", "executorcluster", cluster, "-n", NS, "--wait=true").orFail();
        await(cluster + "'s pods gone").atMost(Duration.ofMinutes(3)).until(() -> kube.pods(NS, cluster).isEmpty());
    }

    @Test
    @Order(1)
    void evictionsThroughThePdbNeverTakeMoreThanItAllowsAndLoseNothing() throws Exception {
        String ec = "evictable";
        kube.apply(cluster(ec, 3).yaml());
        kube.awaitReady(NS, ec, 3);
        receiver.reset();
        JobTable jobs = table(ec);
        List<Long> ids = Collections.synchronizedList(new ArrayList<>());
        Map<String, String> uids = kube.pods(NS, ec).stream()
                .collect(Collectors.toMap(p -> p.getMetadata().getName(), p -> p.getMetadata().getUid()));
        FleetWatch watch = new FleetWatch(client, NS, ec);
        Instant start = Instant.now();
        int refused = 0;
        // A client that does not retry on 429 by itself, so each refusal by the PDB is seen.
        KubernetesClient evictor = new KubernetesClientBuilder().withConfig(new io.fabric8.kubernetes.client.ConfigBuilder()
                .withRequestRetryBackoffLimit(0).build()).build();
        try (evictor; JobFeeder feeder = new JobFeeder(() -> jobs.enqueue("chaos", "1000", 6, 3), ids, 1000)) {
            Thread.sleep(5000);
            // Every pod evicted through the Eviction API, as kubectl drain does, all asked at once:
            // the API server refuses (429) while the PDB allows no more disruptions, the caller retries.
            List<String> pending = new ArrayList<>(List.of(ec + "-0", ec + "-1", ec + "-2"));
            Instant deadline = Instant.now().plus(Duration.ofMinutes(4));
            while (!pending.isEmpty()) {
                for (String pod : List.copyOf(pending)) {
                    if (evictor.pods().inNamespace(NS).withName(pod).evict()) {
                        pending.remove(pod);
                        log("evicted " + pod + " after " + Duration.between(start, Instant.now()).toSeconds() + " s");
                    } else {
                        refused++;
                    }
                }
                assertThat(Instant.now()).as("every eviction allowed in time").isBefore(deadline);
                Thread.sleep(500);
            }
            await("every pod replaced").atMost(Duration.ofMinutes(3)).until(() -> kube.pods(NS, ec).stream()
                    .allMatch(p -> !p.getMetadata().getUid().equals(uids.get(p.getMetadata().getName()))));
            kube.awaitReady(NS, ec, 3);
        } finally {
            watch.close();
        }
        int healthyDisrupted = watch.mostHealthyDisrupted();
        int disrupted = watch.mostDisrupted();
        int mostUnready = watch.mostUnready();
        awaitFinished(jobs, ids, Set.of(), Duration.ofMinutes(3));
        Runs runs = Runs.of(ids, Set.of(), jobs.deadLetterErrors().keySet(), receiver.events(), List.of());
        int refusals = refused;
        long took = Duration.between(start, Instant.now()).toSeconds();
        log("evictions: " + runs + "; most pods evicted while ready and not yet replaced at once " + healthyDisrupted
                + " (of any readiness " + disrupted + "), not ready at once " + mostUnready + "; evictions refused by the PDB "
                + refusals + "; " + took + " s");
        report.check("evictions through the PDB", "3 pods evicted at once through the Eviction API (as kubectl drain)",
                ids.size(), runs, "at most " + healthyDisrupted + " ready pod evicted at once (" + mostUnready + " not ready), "
                        + refusals + " evictions refused by the PDB, all 3 replaced in " + took + " s", () -> {
                    assertThat(healthyDisrupted).as("ready pods evicted and not yet replaced at once (PDB maxUnavailable 1)")
                            .isLessThanOrEqualTo(1);
                    assertThat(refusals).as("the PDB held back some evictions").isPositive();
                    assertThat(runs.lost()).isEmpty();
                    assertThat(runs.interrupted()).as("graceful stops cut no run").isEmpty();
                    assertThat(runs.ranTwice()).isEmpty();
                });
        delete(ec);
    }

    @Test
    @Order(2)
    void theFleetRunsOnWhileTheOperatorIsAwayAndTheOperatorCatchesUp() throws Exception {
        String ec = "headless";
        kube.apply(cluster(ec, 2).yaml());
        kube.awaitReady(NS, ec, 2);
        receiver.reset();
        JobTable jobs = table(ec);
        List<Long> ids = Collections.synchronizedList(new ArrayList<>());
        Runs.Kill killed;
        long finishedAway;
        long caughtUp;
        String revision = kube.statefulSet(NS, ec).getStatus().getUpdateRevision();
        try (JobFeeder feeder = new JobFeeder(() -> jobs.enqueue("chaos", "500", 4, 3), ids, 1000)) {
            Thread.sleep(5000);
            kube.kubectl("-n", Kube.OPERATOR_NS, "scale", "deployment", Kube.RELEASE, "--replicas=0").orFail();
            await("operator gone").atMost(Duration.ofMinutes(2)).until(() -> client.pods().inNamespace(Kube.OPERATOR_NS)
                    .withLabel("app.kubernetes.io/name", "drover-operator").list().getItems().isEmpty());
            Instant away = Instant.now();
            long finishedBefore = finishes();
            Pod victim = client.pods().inNamespace(NS).withName(ec + "-1").get();
            int restartsBefore = nz(victim.getStatus().getContainerStatuses().get(0).getRestartCount());
            // At half load the pod is idle half the time: kill it while it runs a job, so that the
            // recovery of a killed pod's runs is what this exercises (a run of 500 ms may still end
            // before the signal lands; then nothing was cut short, and the accounting says so).
            await("a run open on the victim").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(50))
                    .until(() -> runningOn(ec + "-1") > 0);
            killed = kube.sigkill(victim);
            await("the killed container comes back without the operator").atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofSeconds(1)).until(() -> nz(client.pods().inNamespace(NS).withName(ec + "-1")
                            .get().getStatus().getContainerStatuses().get(0).getRestartCount()) > restartsBefore);
            // A spec change while no operator runs: applied when it is back.
            kube.kubectl("-n", NS, "patch", "executorcluster", ec, "--type=merge", "-p", "{\"spec\":{\"threads\":3}}").orFail();
            Thread.sleep(Duration.ofMinutes(1).minus(Duration.between(away, Instant.now())).toMillis());
            finishedAway = finishes() - finishedBefore;
            log("operator away for " + Duration.between(away, Instant.now()).toSeconds() + " s: " + finishedAway
                    + " jobs finished meanwhile; " + ec + "-1 was SIGKILLed (sent at " + killed.sent() + ", returned at " + killed.dead() + ")");
            assertThat(finishedAway).as("the executors kept draining without the operator").isPositive();
            assertThat(kube.statefulSet(NS, ec).getStatus().getUpdateRevision()).as("nothing rolled without the operator")
                    .isEqualTo(revision);
            kube.kubectl("-n", Kube.OPERATOR_NS, "scale", "deployment", Kube.RELEASE, "--replicas=1").orFail();
            Instant back = Instant.now();
            await("the operator applies the change made while it was away").atMost(Duration.ofMinutes(4))
                    .pollInterval(Duration.ofSeconds(2)).until(() -> "3".equals(kube.setting(NS, ec, "DROVER_THREADS"))
                            && !revision.equals(kube.statefulSet(NS, ec).getStatus().getUpdateRevision()));
            kube.awaitReady(NS, ec, 2);
            caughtUp = Duration.between(back, Instant.now()).toSeconds();
            log("operator back: change applied and rolled " + caughtUp + " s later");
        }
        awaitFinished(jobs, ids, Set.of(), Duration.ofMinutes(3));
        Runs runs = Runs.of(ids, Set.of(), jobs.deadLetterErrors().keySet(), receiver.events(), List.of(killed));
        log("operator away: " + runs);
        report.check("the operator away", "operator scaled to 0 for 60 s; a pod SIGKILLed and the spec changed meanwhile",
                ids.size(), runs, finishedAway + " jobs finished while it was away; the killed container came back alone;"
                        + " the change was applied and rolled " + caughtUp + " s after the operator returned; "
                        + runs.duplicates("each first started on the killed pod as it was killed, and again after"), () -> {
                    assertThat(runs.lost()).isEmpty();
                    assertThat(runs.ranTwiceUnexplained()).as("jobs run twice that the kill does not explain").isEmpty();
                });
        delete(ec);
    }

    private static long finishes() {
        return receiver.events().stream().filter(e -> e.kind().equals("finish")).count();
    }

    @Test
    @Order(3)
    void kedaScaleDownWhileLongJobsRunCutsNone() throws Exception {
        String ec = "longjobs";
        // 30 s jobs; the grace periods follow maxJobDuration. Target 3 per node with 2 threads:
        // 6 running jobs want 2 nodes, so the third is removed while its jobs run.
        kube.apply(cluster(ec, 1).set("maxJobDuration", "40s")
                .setYaml("autoscaling", "{enabled: true, minReplicas: 1, maxReplicas: 3, targetBacklogPerNode: 3, activationBacklog: 0,"
                        + " pollingInterval: 5s, cooldownPeriod: 30s, scaleDownStabilizationWindow: 15s}").yaml());
        kube.awaitReady(NS, ec, 1);
        kube.awaitCondition(NS, ec, "Autoscaling", "True");
        assertThat(kube.statefulSet(NS, ec).getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
                .as("terminationGracePeriodSeconds derived from maxJobDuration 40s").isEqualTo(80);
        receiver.reset();
        JobTable jobs = table(ec);
        List<Long> ids = jobs.enqueue("chaos", "30000", 12, 3);
        Instant enqueued = Instant.now();
        await("KEDA scales to 3 nodes").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1))
                .until(() -> kube.replicas(NS, ec) == 3);
        log("long jobs: 3 nodes after " + Duration.between(enqueued, Instant.now()).toSeconds() + " s");
        await("KEDA scales down while jobs run").atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(500))
                .until(() -> kube.replicas(NS, ec) < 3);
        Instant down = Instant.now();
        int runningThen = running();
        log("long jobs: scaled to " + kube.replicas(NS, ec) + " nodes " + Duration.between(enqueued, down).toSeconds()
                + " s after enqueueing, with " + runningThen + " jobs running");
        awaitFinished(jobs, ids, Set.of(), Duration.ofMinutes(4));
        Runs runs = Runs.of(ids, Set.of(), jobs.deadLetterErrors().keySet(), receiver.events(), List.of());
        // Jobs that were running on the removed node when it was asked to stop, and finished there.
        List<Long> finishedWhileStopping = receiver.events().stream()
                .filter(e -> e.kind().equals("finish") && e.node().equals(ec + "-2") && e.at().isAfter(down))
                .map(ExecutionReceiver.Event::job).toList();
        log("long jobs: " + runs + "; finished on " + ec + "-2 after it was asked to stop: " + finishedWhileStopping);
        report.check("KEDA scale-down under long jobs", "3 -> 2 nodes by KEDA while 30 s jobs run (maxJobDuration 40s)",
                ids.size(), runs, runningThen + " jobs running at the scale-down; the removed node finished "
                        + finishedWhileStopping.size() + " of them after it was asked to stop", () -> {
                    assertThat(runningThen).as("jobs were running when the fleet shrank").isPositive();
                    assertThat(finishedWhileStopping).as("the removed node finished its running jobs").isNotEmpty();
                    assertThat(runs.lost()).isEmpty();
                    assertThat(runs.interrupted()).as("scale-down cut no running job").isEmpty();
                    assertThat(runs.ranTwice()).isEmpty();
                });
        delete(ec);
    }

    /** Runs started and not yet finished, by the receiver's count. */
    private static int running() {
        return runningOn(null);
    }

    /** Runs started on this node (any node if null) and not yet finished, by the receiver's count. */
    private static int runningOn(String node) {
        Map<Long, Integer> open = new java.util.HashMap<>();
        for (ExecutionReceiver.Event e : receiver.events()) {
            if (node == null || node.equals(e.node())) {
                open.merge(e.job(), e.kind().equals("start") ? 1 : -1, Integer::sum);
            }
        }
        return (int) open.values().stream().filter(n -> n > 0).count();
    }

    @Test
    @Order(4)
    void theDatabaseStoppedUnderAnAutoscaledFleetShrinksNothingAndLosesNothing() throws Exception {
        Assumptions.assumeTrue(env.dbStop().isPresent() && env.dbStart().isPresent(),
                "E2E_DB_STOP and E2E_DB_START say how to stop and start the database");
        String ec = "dbdown";
        kube.apply(cluster(ec, 2)
                .setYaml("autoscaling", "{enabled: true, minReplicas: 2, maxReplicas: 3, targetBacklogPerNode: 2, activationBacklog: 0,"
                        + " pollingInterval: 5s, cooldownPeriod: 30s, scaleDownStabilizationWindow: 30s}").yaml());
        kube.awaitReady(NS, ec, 2);
        receiver.reset();
        JobTable jobs = table(ec);
        List<Long> ids = jobs.enqueue("chaos", "1000", 150, 3);
        await("KEDA scales to 3 nodes").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1))
                .until(() -> kube.replicas(NS, ec) == 3);
        kube.awaitReady(NS, ec, 3);
        int before = kube.replicas(NS, ec);
        FleetWatch watch = new FleetWatch(client, NS, ec);
        Instant stopped = Instant.now();
        Instant started;
        boolean answeredWhileStopped;
        Instant restarting;
        try {
            Commands.run(List.of("bash", "-c", env.dbStop().get())).orFail();
            answeredWhileStopped = jobs.answers();
            Thread.sleep(20_000); // 2 x lockExpiry
            restarting = Instant.now(); // the start command's readiness polls may let a node start a job before it returns
            Commands.run(List.of("bash", "-c", env.dbStart().get())).orFail();
            started = Instant.now();
            Map<?, ?> autoscaling = kube.condition(NS, ec, "Autoscaling");
            log("database down " + Duration.between(stopped, started).toSeconds() + " s; Autoscaling condition then: "
                    + (autoscaling == null ? "-" : autoscaling.get("reason") + ": " + autoscaling.get("message")));
            Thread.sleep(30_000); // the fleet resumes, KEDA and the operator look again
        } finally {
            watch.close();
        }
        int least = watch.fewestReplicas();
        log("replicas: " + before + " before the outage, never fewer than " + least + " until 30 s after it");
        awaitFinished(jobs, ids, Set.of(), Duration.ofMinutes(4));
        long drained = Duration.between(started, Instant.now()).toSeconds();
        Runs runs = Runs.of(ids, Set.of(), jobs.deadLetterErrors().keySet(), receiver.events(), List.of());
        // The outage's effect: once every lease had run out (lockExpiry 10 s, and 3 s for a start
        // report on its way), no node may start a job until the database is being started again.
        Instant leasesOut = stopped.plusSeconds(10 + 3);
        List<Long> startedWhileDown = receiver.events().stream().filter(e -> e.kind().equals("start")
                && e.at().isAfter(leasesOut) && e.at().isBefore(restarting)).map(ExecutionReceiver.Event::job).toList();
        log("database down: " + runs + "; drained " + drained + " s after the database was back; started while"
                + " down with every lease out: " + startedWhileDown);
        report.check("PostgreSQL stopped under an autoscaled fleet", "server stopped for 20 s (2 x lockExpiry) at 3 nodes",
                ids.size(), runs, "replicas " + before + " before, never fewer than " + least
                        + "; drained " + drained + " s after the database was back", () -> {
                    assertThat(answeredWhileStopped).as("the database answered after E2E_DB_STOP: no outage").isFalse();
                    assertThat(startedWhileDown).as("jobs started while the database was down, every lease out").isEmpty();
                    assertThat(least).as("replicas never drop because of the outage").isEqualTo(before);
                    assertThat(runs.lost()).isEmpty();
                    assertThat(runs.ranTwice()).as("a database outage runs nothing twice").isEmpty();
                });
        delete(ec);
    }

    @Test
    @Order(5)
    void aJobThatMakesItsPodRunOutOfMemoryEndsAsPoisonAndTheFleetDrains() throws Exception {
        String ec = "oom";
        // The heap may grow past the container's limit: the kernel's OOM killer ends the pod.
        ClusterFixture small = cluster(ec, 2).set("resources.limits.memory", "400Mi");
        kube.apply(small.set("jvmOptions", "-Xmx1500m " + small.get("jvmOptions")).yaml());
        kube.awaitReady(NS, ec, 2);
        receiver.reset();
        JobTable jobs = table(ec);
        List<Long> ordinary = new ArrayList<>(jobs.enqueue("chaos", "200", 100, 3));
        long poison = jobs.enqueue("chaos", "oom", 1, 3).get(0);
        ordinary.addAll(jobs.enqueue("chaos", "200", 100, 3));
        Instant enqueued = Instant.now();
        await("the job that runs its pod out of memory is dead-lettered").atMost(Duration.ofMinutes(8))
                .pollInterval(Duration.ofSeconds(2)).until(() -> jobs.deadLetterErrors().containsKey(poison));
        String reason = jobs.deadLetterErrors().get(poison);
        awaitFinished(jobs, ordinary, Set.of(), Duration.ofMinutes(3));
        kube.awaitReady(NS, ec, 2);
        int restarts = kube.pods(NS, ec).stream().mapToInt(p -> nz(p.getStatus().getContainerStatuses().get(0).getRestartCount())).sum();
        Set<String> lastReasons = new HashSet<>();
        kube.pods(NS, ec).forEach(p -> {
            var last = p.getStatus().getContainerStatuses().get(0).getLastState();
            if (last != null && last.getTerminated() != null) {
                lastReasons.add(last.getTerminated().getReason());
            }
        });
        // Each start of the poison job ran its pod out of memory: the jobs beside it on that pod may
        // run again, no other. The kernel kills the pod within seconds of the poison job starting
        // (it allocates and touches 8 MB at a time); the window allows 10 s.
        List<Runs.Kill> oomKills = receiver.events().stream().filter(e -> e.kind().equals("start") && e.job() == poison)
                .map(e -> new Runs.Kill(e.node(), e.at().minus(Runs.REPORT_LATENCY), e.at().plusSeconds(10))).toList();
        Runs runs = Runs.of(ordinary, Set.of(), jobs.deadLetterErrors().keySet(), receiver.events(), oomKills);
        long took = Duration.between(enqueued, Instant.now()).toSeconds();
        log("out of memory: dead-lettered after " + took + " s with \""
                + reason + "\"; container restarts " + restarts + " (last terminations " + lastReasons + "); ordinary jobs: " + runs);
        Map<Long, String> dead = jobs.deadLetterErrors();
        report.check("a job that runs its pod out of memory", "heap allowed past the 400Mi limit; the kernel OOM-kills the pod",
                ordinary.size(), runs, "dead-lettered after " + restarts + " OOM kills in " + took + " s: \""
                        + reason.replaceAll(" \\(the last: .*\\)", "") + "\"; " + oomKills.size() + " starts of it; "
                        + runs.duplicates("each first started beside it on a pod it ran out of memory, and again after"), () -> {
                    assertThat(reason).startsWith("poison: 3 executor nodes died while running it");
                    assertThat(lastReasons).as("the pods were OOM-killed").contains("OOMKilled");
                    assertThat(runs.lost()).isEmpty();
                    assertThat(runs.ranTwiceUnexplained()).as("jobs run twice, other than those beside the poison job").isEmpty();
                    assertThat(dead).as("only the poison job is dead-lettered").containsOnlyKeys(poison);
                });
        delete(ec);
    }
}
