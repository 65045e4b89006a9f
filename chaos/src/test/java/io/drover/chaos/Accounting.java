package io.drover.chaos;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Exact accounting of one scenario, by job id, from the receiver's events, the database's dead
 * letters and what is left in the job table: lost jobs, jobs dead-lettered without having run,
 * and duplicates, each duplicate checked against the fault.
 *
 * <p>A duplicate is explained when it ran exactly twice, its first run started on the node the
 * fault hit, before the fault began (or, for a fault the node can only find out by a timeout,
 * such as a half-open connection, within the scenario's {@code detection} window after it
 * began), and had not finished well before the fault (a finished run whose outcome was written
 * would never run again), and its second run started after the fault began (no node takes over
 * a job the faulted node still holds). A fault of the database alone may run nothing twice.
 *
 * <p>The e2e suites' {@code Runs.Kill} (e2e/) is the same rule for pods, judged by when reports
 * arrive and when a JVM fell silent: pods share no clock, while the campaign's nodes and receiver
 * share this machine's monotonic clock, so here every run is judged by its handler's own stamp.
 */
record Accounting(int jobs, List<Long> lost, List<Long> deadWithoutRun, List<Long> left, List<Long> duplicates,
                  List<Long> startedDuringFault, List<Long> unexplainedDuplicates, int expectedDeadLetters,
                  List<String> wrongPoisonReasons) {
    /** The faulted node of a fault that hit no node (the database alone): every duplicate is unexplained. */
    static final String NO_NODE = "(no node)";
    /** An outcome is written within this of its finish; a run finished earlier than this before the fault was recorded. */
    static final long OUTCOME_WRITTEN_NANOS = 2_000_000_000L;

    /** The fault a scenario injected: when, where, and how long its node could not tell. */
    record Fault(long start, long end, String node, long detection) {
    }

    /**
     * @param jobs        the ordinary jobs of the scenario (must each finish)
     * @param poison      poison jobs and the predicate their dead letter's reason must meet
     * @param inTable     ids still in the job table at the end (none of the ordinary jobs may be)
     */
    static Accounting of(Collection<Long> jobs, Map<Long, Predicate<String>> poison, Map<Long, String> deadLetters,
                         Set<Long> inTable, List<Receiver.Event> events, Fault fault) {
        Map<Long, List<Receiver.Event>> starts = new HashMap<>();
        Map<Long, Long> firstFinish = new HashMap<>();
        for (Receiver.Event e : events) {
            if (e.kind().equals("start")) {
                starts.computeIfAbsent(e.job(), k -> new ArrayList<>()).add(e);
            } else {
                firstFinish.merge(e.job(), e.nanos(), Math::min);
            }
        }
        // Reports arrive in any order (a frozen node's arrive when it is thawed): runs go by their stamps.
        starts.values().forEach(s -> s.sort(Comparator.comparingLong(Receiver.Event::nanos)));
        List<Long> lost = new ArrayList<>();
        List<Long> deadWithoutRun = new ArrayList<>();
        List<Long> left = new ArrayList<>();
        List<Long> duplicates = new ArrayList<>();
        List<Long> during = new ArrayList<>();
        List<Long> unexplained = new ArrayList<>();
        for (long id : jobs) {
            if (deadLetters.containsKey(id)) {
                deadWithoutRun.add(id); // an ordinary job must never be dead-lettered here
            } else if (!firstFinish.containsKey(id)) {
                lost.add(id);
            }
            if (inTable.contains(id)) {
                left.add(id);
            }
            List<Receiver.Event> s = starts.getOrDefault(id, List.of());
            if (s.size() > 1) {
                duplicates.add(id);
                Receiver.Event first = s.get(0);
                if (first.nanos() > fault.start()) {
                    during.add(id);
                }
                Long finished = firstFinish.get(id);
                boolean explained = s.size() == 2 && fault.node() != null && first.node().equals(fault.node())
                        && first.nanos() <= fault.start() + fault.detection() && s.get(1).nanos() > fault.start()
                        && (finished == null || finished > fault.start() - OUTCOME_WRITTEN_NANOS);
                if (!explained) {
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
        return new Accounting(jobs.size(), lost, deadWithoutRun, left, duplicates, during, unexplained, poison.size(),
                wrong);
    }

    boolean passed() {
        return lost.isEmpty() && deadWithoutRun.isEmpty() && left.isEmpty() && unexplainedDuplicates.isEmpty()
                && wrongPoisonReasons.isEmpty();
    }

    static Set<Long> ids(Collection<Long> c) {
        return new HashSet<>(c);
    }
}
