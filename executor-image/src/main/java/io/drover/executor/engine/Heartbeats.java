package io.drover.executor.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Progress watchdogs for the engine's single-threaded loops. Each loop beats once per turn,
 * failed turns included; a loop that stops beating is stuck (a call that never returns, a
 * thread that died), and the node can no longer do its work. Liveness reports it, so the pod is
 * restarted instead of holding its jobs forever while looking healthy. A loop that ended on a
 * Throwable it did not expect (an Error, a bug) says so at once: no job starts from then on
 * (ExecutorEngine's gate), since its outcome might never be written or its lock renewed, and
 * liveness fails without waiting for stallTimeout.
 */
final class Heartbeats {
    /** One loop's heartbeat. */
    static final class Beat {
        private final String loop;
        private volatile long last = System.nanoTime();

        private Beat(String loop) {
            this.loop = loop;
        }

        private volatile String ended;

        void beat() {
            last = System.nanoTime();
        }

        /** The loop ended on something it did not expect: from now on the node cannot work. */
        void ended(Throwable cause) {
            String what = String.valueOf(cause);
            ended = what.length() > 300 ? what.substring(0, 300) + "..." : what;
        }

        /**
         * The loop's body, run so that whatever escapes it ends the loop visibly (logged, and
         * {@link #ended}) rather than a thread that dies, or a scheduled task the scheduler
         * quietly never runs again, with only the heartbeat's silence to tell after stallTimeout.
         */
        Runnable guarded(Runnable body, org.jboss.logging.Logger log) {
            return () -> {
                try {
                    body.run();
                } catch (Throwable t) {
                    ended(t);
                    log.errorf(t, "The %s loop ended unexpectedly: no job starts on this node from now on, and"
                            + " liveness restarts it", loop);
                }
            };
        }
    }

    private final List<Beat> beats = new CopyOnWriteArrayList<>();

    Beat register(String loop) {
        Beat b = new Beat(loop);
        beats.add(b);
        return b;
    }

    /** Whether a loop ended on something it did not expect. */
    boolean anyEnded() {
        for (Beat b : beats) {
            if (b.ended != null) {
                return true;
            }
        }
        return false;
    }

    /** The loops that ended unexpectedly, and those silent for longer than {@code nanos}, each with how long. */
    List<String> silentFor(long nanos) {
        List<String> silent = new ArrayList<>();
        long now = System.nanoTime();
        for (Beat b : beats) {
            long quiet = now - b.last;
            if (b.ended != null) {
                silent.add(b.loop + " loop ended unexpectedly: " + b.ended);
            } else if (quiet > nanos) {
                silent.add(b.loop + " loop made no progress for " + quiet / 1_000_000_000L + " s");
            }
        }
        return silent;
    }
}
