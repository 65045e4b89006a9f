package io.drover.executor.service;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** When liveness gives up on a start-up that has not finished. */
class StartupWatchTest {
    @Test
    void aStartUpWhoseThreadEndedWithoutFinishingNeverWill() throws Exception {
        StartupWatch watch = new StartupWatch(Duration.ofMinutes(5));
        Thread thread = Thread.ofPlatform().unstarted(() -> {
            throw new StackOverflowError(); // what no catch of Exception sees
        });
        thread.setUncaughtExceptionHandler((t, e) -> { });
        assertThat(watch.problem(null, "starting", false, System.nanoTime())).isEmpty();
        thread.start();
        thread.join();
        assertThat(watch.problem(thread, "Migrating the schema drover", false, System.nanoTime()))
                .hasValue("start-up ended without starting the node (the log says why): Migrating the schema drover");
    }

    @Test
    void aStartUpStillRunningPastStartupTimeoutAndItsMarginIsStuck() throws Exception {
        StartupWatch watch = new StartupWatch(Duration.ofSeconds(10));
        Thread running = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            long now = System.nanoTime();
            assertThat(watch.problem(running, "Migrating the schema drover", false, now)).isEmpty();
            assertThat(watch.problem(running, "Migrating the schema drover", false, now + Duration.ofSeconds(39).toNanos())).isEmpty();
            assertThat(watch.problem(running, "Migrating the schema drover", false, now + Duration.ofSeconds(41).toNanos()))
                    .hasValueSatisfying(p -> assertThat(p).startsWith("still starting after 4").endsWith("(startupTimeout PT10S): Migrating the schema drover"));
            // A migration that is merely long runs to its end: killed, it would roll back at every start.
            assertThat(watch.problem(running, "Migrating the schema drover", true, now + Duration.ofMinutes(30).toNanos())).isEmpty();
        } finally {
            running.interrupt();
        }
    }
}
