package io.drover.executor.api;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** One job to enqueue. */
@Schema(description = "A job to enqueue. A job with a future dueAt is a timer; with repeatEvery, a recurring timer.")
public record JobRequest(
        @Schema(description = "Handler type, e.g. noop, sleep, http", required = true, examples = "sleep")
        String type,
        @Schema(description = "Handler input: a JSON string is stored as its text, any other JSON value as JSON text",
                examples = "100", implementation = Object.class)
        RequestPayload payload,
        @Schema(description = "ISO-8601 instant; omitted means now", examples = "2026-11-22T10:00:00Z")
        String dueAt,
        @Schema(description = "Attempts before the job goes to dead letters (1-1000); default: the maxAttempts setting")
        Integer maxAttempts,
        @Schema(description = "Period of a recurring timer, ISO-8601 (PT1M) or short (60s); at least 1s", examples = "PT1M")
        String repeatEvery) {
}
