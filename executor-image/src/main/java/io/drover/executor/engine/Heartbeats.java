package io.drover.executor.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Progress watchdogs for the engine's single-threaded loops. Each loop beats once per turn,
 * failed turns included; a loop that stops beating is stuck (a call that never returns, a
 * thread that died), and the node can no longer do its work. Liveness reports it, so the pod is
 * restarted instead of holding its jobs forever while looking healthy.
 */
final class Heartbeats {
    /** One loop's heartbeat. */
    static final class Beat {
        private final String loop;
        private volatile long last = System.nanoTime();

        private Beat(String loop) {
            this.loop = loop;
        }

        void beat() {
            last = System.nanoTime();
        }
    }

    private final List<Beat> beats = new CopyOnWriteArrayList<>();

    Beat register(String loop) {
        Beat b = new Beat(loop);
        beats.add(b);
        return b;
    }

    /** The loops silent for longer than {@code nanos}, each with how long. */
    List<String> silentFor(long nanos) {
        List<String> silent = new ArrayList<>();
        long now = System.nanoTime();
        for (Beat b : beats) {
            long quiet = now - b.last;
            if (quiet > nanos) {
                silent.add(b.loop + " loop made no progress for " + quiet / 1_000_000_000L + " s");
            }
        }
        return silent;
    }
}
