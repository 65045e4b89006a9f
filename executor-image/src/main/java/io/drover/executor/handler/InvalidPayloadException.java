package io.drover.executor.handler;

/** The job's payload cannot be understood by its handler; never retried. */
public class InvalidPayloadException extends PermanentJobFailure {
    public InvalidPayloadException(String message) {
        super(message);
    }

    public InvalidPayloadException(String message, Throwable cause) {
        super(message, cause);
    }
}
