package io.drover.flowable.bench;

import java.time.Instant;
import java.util.Map;

/**
 * What one benchmark job is, in Flowable: an instance of one of the bundled models
 * (processes/*.bpmn20.xml), whose one job the drain waits for. Spelled as Drover's benchmark
 * spells its kinds: noop, sleep:&lt;ms&gt;, timer.
 */
record BenchKind(String name, String processKey, int sleepMillis) {

    static BenchKind parse(String text) {
        if (text.equals("noop")) {
            return new BenchKind("noop", "asyncNoop", 0);
        }
        if (text.equals("timer")) {
            return new BenchKind("timer", "timer", 0);
        }
        if (text.startsWith("sleep:")) {
            try {
                int ms = Integer.parseInt(text.substring("sleep:".length()));
                if (ms > 0) {
                    return new BenchKind(text, "asyncSleep", ms);
                }
            } catch (NumberFormatException e) {
                // refused below
            }
        }
        throw new IllegalArgumentException("--kind must be noop, sleep:<ms> (ms > 0) or timer, got '" + text + "'");
    }

    /**
     * The instance's variables: the sleep, or a timer parked a day ahead, out of the nodes' reach
     * until {@link FlowableSeeder#release} makes every seeded timer due at once.
     */
    Map<String, Object> variables(Instant now) {
        return switch (processKey) {
            case "asyncSleep" -> Map.of("ms", sleepMillis);
            case "timer" -> Map.of("dueAt", now.plus(java.time.Duration.ofDays(1)).toString());
            default -> Map.of();
        };
    }

    boolean isTimer() {
        return processKey.equals("timer");
    }

    /** Jobs per second the nodes' threads could run at most (sleep jobs only; NaN otherwise). */
    double theoreticalMaxPerSecond(int nodes, int threads) {
        return sleepMillis > 0 ? nodes * threads * 1000.0 / sleepMillis : Double.NaN;
    }
}
