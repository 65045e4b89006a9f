package io.drover.executor.handler;

/** A failure that retrying cannot fix: the job goes to dead letters at once with this message. */
public class PermanentJobFailure extends Exception {
    public PermanentJobFailure(String message) {
        super(message);
    }

    public PermanentJobFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
