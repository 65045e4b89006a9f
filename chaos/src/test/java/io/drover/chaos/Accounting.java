package io.drover.chaos;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Exact accounting of one scenario, by job id, from the receiver's events and the database's
 * dead letters: lost jobs, jobs dead-lettered without having run, and duplicates, each
 * duplicate checked against the fault (its first run must have started before the fault ended,
 * on the faulted node when one node was faulted).
 */
record Accounting(int jobs, List<Long> lost, List<Long> deadWithoutRun, List<Long> duplicates,
                  List<Long> startedDuringFault, List<Long> unexplainedDuplicates, int expectedDeadLetters,
                  List<String> wrongPoisonReasons) {
    /** The faulted node of a fault that hit no node (the database alone): every duplicate is unexplained. */
    static final String NO_NODE = "(no node)";

    /**
     * @param jobs           the ordinary jobs of the scenario (must each finish)
     * @param poison         poison jobs and the predicate their dead letter's reason must meet
     * @param faultStart     when the fault began (receiver clock)
     * @param faultEnd       when the fault ended (receiver clock); duplicates must have started before
     * @param faultedNode    the node the fault hit; {@link #NO_NODE} when it hit none; null when
     *                       any node's runs may have been cut short (poison jobs)
     */
    static Accounting of(Collection<Long> jobs, Map<Long, Predicate<String>> poison, Map<Long, String> deadLetters,
                         List<Receiver.Event> events, long faultStart, long faultEnd, String faultedNode) {
        Map<Long, List<Receiver.Event>> starts = new HashMap<>();
        Set<Long> finished = new HashSet<>();
        for (Receiver.Event e : events) {
            if (e.kind().equals("start")) {
                starts.computeIfAbsent(e.job(), k -> new ArrayList<>()).add(e);
            } else {
                finished.add(e.job());
            }
        }
        List<Long> lost = new ArrayList<>();
        List<Long> deadWithoutRun = new ArrayList<>();
        List<Long> duplicates = new ArrayList<>();
        List<Long> during = new ArrayList<>();
        List<Long> unexplained = new ArrayList<>();
        for (long id : jobs) {
            if (deadLetters.containsKey(id)) {
                deadWithoutRun.add(id); // an ordinary job must never be dead-lettered here
            } else if (!finished.contains(id)) {
                lost.add(id);
            }
            List<Receiver.Event> s = starts.getOrDefault(id, List.of());
            if (s.size() > 1) {
                duplicates.add(id);
                Receiver.Event first = s.get(0);
                if (first.nanos() > faultStart) {
                    during.add(id);
                }
                if (first.nanos() > faultEnd || (faultedNode != null && !first.node().equals(faultedNode))) {
                    unexplained.add(id);
                }
            }
        }
        List<String> wrong = new ArrayList<>();
        poison.forEach((id, reason) -> {
            String error = deadLetters.get(id);
            if (error == null || !reason.test(error)) {
                wrong.add(id + ": " + (error == null ? "not dead-lettered" : error.lines().findFirst().orElse("")));
            }
        });
        return new Accounting(jobs.size(), lost, deadWithoutRun, duplicates, during, unexplained, poison.size(), wrong);
    }

    boolean passed() {
        return lost.isEmpty() && deadWithoutRun.isEmpty() && unexplainedDuplicates.isEmpty() && wrongPoisonReasons.isEmpty();
    }
}
