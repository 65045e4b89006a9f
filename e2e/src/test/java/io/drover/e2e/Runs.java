package io.drover.e2e;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Exact accounting of chaos jobs by id, from the receiver's start and finish reports: which
 * jobs were lost (never finished, not dead-lettered), which runs were cut short (a start with no
 * finish), which jobs ran twice, and which of those no kill explains.
 */
record Runs(List<Long> lost, List<Long> interrupted, List<Long> ranTwice, List<Long> ranTwiceUnexplained,
            List<String> twiceRuns, int finished) {

    /** A report reaches the receiver a moment after it was sent (the chaos campaign allows the same). */
    static final Duration REPORT_LATENCY = Duration.ofSeconds(1);
    /** A finished run's outcome is written within this; one finished earlier before a kill was recorded. */
    static final Duration OUTCOME_WRITTEN = Duration.ofSeconds(2);

    /**
     * A container killed: the pod, and a window in which it died: after {@code sent} (the kill
     * sent, or the poison job that ran it out of memory started) and by {@code dead} (the kill
     * command returned). Reports are stamped when they arrive, so a start the victim reported as
     * the kill was on its way arrives after {@code sent}: taking the kill's instant before
     * sending it is what most likely failed CI at e800307 (jobs 25 and 26; that run did not log
     * the nodes, a later run had two such jobs, first started on the victim as it was killed).
     *
     * <p>It explains a job run twice, once by the killed JVM and once after it died: two starts;
     * the first on the victim by a JVM that reported nothing more after {@code dead} plus
     * {@link #REPORT_LATENCY} (a dead JVM goes silent; the victim's next container reports under
     * the same pod name, and in a .ci/run started a job 2.7 s after its predecessor's last start, but
     * as another JVM; a report without a JVM token is judged by its own arrival instead); the
     * second after {@code sent} (nothing takes over a job the victim still holds); and no finish
     * of the first reported more than {@link #OUTCOME_WRITTEN} before {@code sent} (its outcome
     * was written).
     *
     * <p>The chaos campaign's {@code Accounting} (chaos/) applies the same rule on stamps from one
     * monotonic clock, which its nodes and receiver share on one machine; pods may run on several
     * machines, so here the reports' arrival and the JVM's silence stand in for the stamps.
     */
    record Kill(String node, Instant sent, Instant dead) {
        /**
         * @param lastReport when each JVM's last report arrived, over the whole scenario
         */
        boolean explains(List<ExecutionReceiver.Event> starts, List<ExecutionReceiver.Event> finishes,
                         Map<String, Instant> lastReport) {
            if (starts.size() != 2) {
                return false;
            }
            ExecutionReceiver.Event first = starts.get(0);
            Instant silent = first.jvm() == null ? first.at() : lastReport.get(first.jvm());
            boolean finishedLongBefore = finishes.stream().anyMatch(f -> f.node().equals(node)
                    && f.at().isBefore(sent.minus(OUTCOME_WRITTEN)));
            return first.node().equals(node) && !silent.isAfter(dead.plus(REPORT_LATENCY))
                    && starts.get(1).at().isAfter(sent) && !finishedLongBefore;
        }
    }

    /**
     * @param ids    the jobs of the scenario
     * @param exempt jobs expected to end elsewhere (poison: dead-lettered)
     * @param kills  what may explain a duplicate ({@link Kill#explains}); none: no duplicate is explained
     */
    static Runs of(Collection<Long> ids, Set<Long> exempt, Collection<Long> deadLettered,
                   List<ExecutionReceiver.Event> events, List<Kill> kills) {
        Map<Long, List<ExecutionReceiver.Event>> starts = new HashMap<>();
        Map<Long, List<ExecutionReceiver.Event>> finishes = new HashMap<>();
        Map<String, Instant> lastReport = new HashMap<>();
        for (ExecutionReceiver.Event e : events) {
            (e.kind().equals("start") ? starts : finishes).computeIfAbsent(e.job(), k -> new ArrayList<>()).add(e);
            if (e.jvm() != null) {
                lastReport.merge(e.jvm(), e.at(), (a, b) -> a.isAfter(b) ? a : b);
            }
        }
        List<Long> lost = new ArrayList<>();
        List<Long> interrupted = new ArrayList<>();
        List<Long> twice = new ArrayList<>();
        List<Long> unexplained = new ArrayList<>();
        List<String> twiceRuns = new ArrayList<>();
        int finished = 0;
        for (long id : ids) {
            if (exempt.contains(id)) {
                continue;
            }
            List<ExecutionReceiver.Event> s = starts.getOrDefault(id, List.of());
            List<ExecutionReceiver.Event> f = finishes.getOrDefault(id, List.of());
            if (!f.isEmpty()) {
                finished++;
            } else if (!deadLettered.contains(id)) {
                lost.add(id);
            }
            if (s.size() > f.size()) {
                interrupted.add(id);
            }
            if (s.size() > 1) {
                twice.add(id);
                twiceRuns.add(id + ": " + s.stream()
                        .map(e -> e.node() + (e.jvm() == null ? "" : "/" + e.jvm()) + " " + e.at()).toList());
                if (kills.stream().noneMatch(k -> k.explains(s, f, lastReport))) {
                    unexplained.add(id);
                }
            }
        }
        return new Runs(lost, interrupted, twice, unexplained, twiceRuns, finished);
    }

    /**
     * The jobs run twice, and whether the kills explain them, for a report row's "measured" text.
     *
     * @param explained what an explained duplicate is, as the scenario's kills mean it
     */
    String duplicates(String explained) {
        if (ranTwice.isEmpty()) {
            return "none run twice";
        }
        return "run twice: " + ranTwice + ", " + (ranTwiceUnexplained.isEmpty() ? explained
                : ranTwiceUnexplained + " not explained by a kill");
    }

    @Override
    public String toString() {
        return finished + " finished, " + lost.size() + " lost, " + interrupted.size() + " cut short, "
                + ranTwice.size() + " run twice" + (ranTwice.isEmpty() ? "" : " (id: starts on node/JVM at arrival) " + twiceRuns);
    }
}
