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
 * finish), which jobs ran twice, and which of those the kill does not explain.
 */
record Runs(List<Long> lost, List<Long> interrupted, List<Long> ranTwice, List<Long> ranTwiceUnexplained,
            List<String> twiceRuns, int finished) {

    /**
     * A container SIGKILLed: the pod whose jobs may run again, and the instant the kill command
     * returned. Taken after it returns, not before it is sent: a start the victim reported while
     * the kill was on its way arrives after an instant taken before it (CI failed on two such
     * jobs at e800307). A report reaches the receiver a moment after it was sent, so a start
     * arriving up to {@link #REPORT_LATENCY} after the kill returned may still be the victim's
     * (as the chaos campaign allows); its next container needs longer than that to start a JVM.
     */
    record Kill(String node, Instant returned) {
        static final Duration REPORT_LATENCY = Duration.ofSeconds(1);

        boolean explains(ExecutionReceiver.Event firstStart) {
            return firstStart.node().equals(node) && !firstStart.at().isAfter(returned.plus(REPORT_LATENCY));
        }
    }

    /**
     * @param ids    the jobs of the scenario
     * @param exempt jobs expected to end elsewhere (poison: dead-lettered)
     * @param kill   what explains a duplicate ({@link Kill#explains}); null when no kill explains any
     */
    static Runs of(Collection<Long> ids, Set<Long> exempt, Collection<Long> deadLettered,
                   List<ExecutionReceiver.Event> events, Kill kill) {
        Map<Long, List<ExecutionReceiver.Event>> starts = new HashMap<>();
        Map<Long, Integer> finishes = new HashMap<>();
        for (ExecutionReceiver.Event e : events) {
            if (e.kind().equals("start")) {
                starts.computeIfAbsent(e.job(), k -> new ArrayList<>()).add(e);
            } else {
                finishes.merge(e.job(), 1, Integer::sum);
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
            int done = finishes.getOrDefault(id, 0);
            List<ExecutionReceiver.Event> s = starts.getOrDefault(id, List.of());
            if (done > 0) {
                finished++;
            } else if (!deadLettered.contains(id)) {
                lost.add(id);
            }
            if (s.size() > done) {
                interrupted.add(id);
            }
            if (s.size() > 1) {
                twice.add(id);
                ExecutionReceiver.Event first = s.get(0);
                twiceRuns.add(id + ": " + s.stream().map(e -> e.node() + " " + e.at()).toList());
                if (kill == null || !kill.explains(first)) {
                    unexplained.add(id);
                }
            }
        }
        return new Runs(lost, interrupted, twice, unexplained, twiceRuns, finished);
    }

    @Override
    public String toString() {
        return finished + " finished, " + lost.size() + " lost, " + interrupted.size() + " cut short, "
                + ranTwice.size() + " run twice" + (ranTwice.isEmpty() ? "" : " (id: starts on node at arrival) " + twiceRuns);
    }
}
