package io.drover.executor.handler;

/** Does nothing: benchmarks use it to measure pure executor overhead. */
public final class NoopHandler implements JobHandler {
    public static final String TYPE = "noop";

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public void execute(JobContext job) {
    }
}
