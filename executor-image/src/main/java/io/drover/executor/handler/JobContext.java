package io.drover.executor.handler;

import java.time.Instant;

/**
 * What a handler gets to see of the job it runs.
 *
 * @param attempt 1 for the first run, incremented on every retry
 */
public record JobContext(long id, String type, String payload, int attempt, int maxAttempts, Instant dueAt) {
}
