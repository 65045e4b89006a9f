package io.drover.executor.api;

import jakarta.ws.rs.NotFoundException;

import java.util.List;

/**
 * Numbers in a request's path and query, read here rather than by the framework: a query
 * parameter or path id it cannot convert becomes its bare "HTTP 404 Not Found", naming nothing.
 */
final class RequestNumbers {
    private RequestNumbers() {
    }

    /** A query parameter: a whole number within the range, or a 400 naming the parameter. */
    static long query(String name, String text, long min, long max) {
        long value;
        try {
            value = Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(List.of(new FieldError(name, "must be a whole number, got '" + text + "'")));
        }
        if (value < min || value > max) {
            throw new InvalidRequestException(List.of(new FieldError(name,
                    "must be between " + min + " and " + max + ", got " + value)));
        }
        return value;
    }

    /** A path id: what names no id names nothing there is, a 404 that says what was looked for. */
    static long id(String text, String what) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new NotFoundException("no " + what + " with id '" + text + "': ids are whole numbers");
        }
    }
}
