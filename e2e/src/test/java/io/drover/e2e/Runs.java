package io.drover.e2e;

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
 * finish), which jobs ran twice, and whether each of those had its first run start before a
 * fault.
 */
record Runs(List<Long> lost, List<Long> interrupted, List<Long> ranTwice, List<Long> ranTwiceAfter, int finished) {

    /**
     * @param ids    the jobs of the scenario
     * @param exempt jobs expected to end elsewhere (poison: dead-lettered)
     * @param fault  duplicates must have started their first run before this instant
     */
    static Runs of(Collection<Long> ids, Set<Long> exempt, Collection<Long> deadLettered,
                   List<ExecutionReceiver.Event> events, Instant fault) {
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
        List<Long> twiceAfter = new ArrayList<>();
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
                if (fault == null || !s.get(0).at().isBefore(fault)) {
                    twiceAfter.add(id);
                }
            }
        }
        return new Runs(lost, interrupted, twice, twiceAfter, finished);
    }

    @Override
    public String toString() {
        return finished + " finished, " + lost.size() + " lost, " + interrupted.size() + " cut short, "
                + ranTwice.size() + " run twice" + (ranTwice.isEmpty() ? "" : " " + ranTwice);
    }
}
