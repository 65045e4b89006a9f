package io.drover.executor.testing;

import io.drover.executor.handler.JobContext;
import io.drover.executor.handler.JobHandler;

/** A handler for a test: a type and what a run does. */
public final class Handlers {
    private Handlers() {
    }

    /** What a run of a test's handler does. */
    @FunctionalInterface
    public interface Run {
        void execute(JobContext job) throws Exception;
    }

    public static JobHandler of(String type, Run run) {
        return new JobHandler() {
            @Override
            public String type() {
                return type;
            }

            @Override
            public void execute(JobContext job) throws Exception {
                run.execute(job);
            }
        };
    }
}
