package io.drover.executor.testing;

import io.drover.executor.handler.JobContext;
import io.drover.executor.handler.JobHandler;
import jakarta.inject.Singleton;

import java.util.concurrent.CountDownLatch;

/**
 * Job type {@code stubborn}: a handler that ignores interrupts until the test releases it, as a
 * handler stuck in a call that cannot be interrupted. A CDI bean, so every @QuarkusTest service has
 * it; only the tests that enqueue jobs of its type (in a schema of their own) see it run.
 */
@Singleton
public class StubbornHandler implements JobHandler {
    public static final String TYPE = "stubborn";
    private static volatile CountDownLatch release = new CountDownLatch(1);

    /** Lets every run that waits return, and later ones return at once. */
    public static void release() {
        release.countDown();
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public void execute(JobContext job) {
        while (true) {
            try {
                release.await();
                return;
            } catch (InterruptedException ignored) {
                // ignored on purpose: this handler does not stop when asked
            }
        }
    }
}
