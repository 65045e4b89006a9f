package io.drover.executor.api;

import java.util.List;

/** A request that failed validation; answered 400 with every field error. Nothing was written. */
public class InvalidRequestException extends RuntimeException {
    private final List<FieldError> errors;

    public InvalidRequestException(List<FieldError> errors) {
        super(errors.size() == 1 ? errors.get(0).field() + " " + errors.get(0).message()
                : errors.size() + " invalid fields, first: " + errors.get(0).field() + " " + errors.get(0).message());
        this.errors = List.copyOf(errors);
    }

    public List<FieldError> errors() {
        return errors;
    }
}
