package io.drover.executor.api;

import java.util.List;

/** The body of every 4xx/5xx answer of the API. */
public record ApiError(String message, List<FieldError> errors) {
    public static ApiError of(String message) {
        return new ApiError(message, List.of());
    }
}
