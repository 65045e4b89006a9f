package io.drover.executor.api;

/** One invalid field of a request, e.g. {@code jobs[3].maxAttempts}: "must be between 1 and 1000". */
public record FieldError(String field, String message) {
}
