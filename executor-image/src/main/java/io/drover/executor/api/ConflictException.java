package io.drover.executor.api;

import java.util.List;

/** A call that does not fit the state of what it names: 409, naming the field. Nothing was written. */
final class ConflictException extends RuntimeException {
    private final String field;

    ConflictException(String field, String message) {
        super(message);
        this.field = field;
    }

    ApiError body() {
        return new ApiError("conflict: " + field + ": " + getMessage(), List.of(new FieldError(field, getMessage())));
    }
}
