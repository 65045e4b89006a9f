package io.drover.executor.api;

import io.drover.contract.SettingLimits;
import io.drover.executor.config.Durations;
import io.drover.executor.store.JobEnqueuer.NewJob;
import io.drover.executor.store.JobLimits;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/** Turns API requests into jobs, collecting every field error (with its path) before any write. */
final class JobRequestValidator {
    static final int MAX_TYPE_LENGTH = 200;
    /** PostgreSQL's text cannot hold it: refused here, naming the field, not by the database. */
    private static final String NUL = "must not contain the NUL character (\\u0000), which PostgreSQL text cannot hold";
    /** Not text: the driver would store a '?' in its place, silently. */
    private static final String SURROGATE = "must not contain an unpaired UTF-16 surrogate (\\ud800-\\udfff alone), which is no character";
    /** What a refused value may echo of itself: a 10 MB dueAt is not sent back twice. */
    private static final int ECHO = 60;
    /** The API takes what a node may default to: one limit (SettingLimits). */
    static final int MAX_ATTEMPTS = SettingLimits.MAX_ATTEMPTS;

    private final int defaultMaxAttempts;

    JobRequestValidator(int defaultMaxAttempts) {
        this.defaultMaxAttempts = defaultMaxAttempts;
    }

    NewJob one(JobRequest request) {
        List<FieldError> errors = new ArrayList<>();
        NewJob job = convert(request, "", errors);
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors);
        }
        return job;
    }

    List<NewJob> batch(JobBatchRequest request, int maxBatch) {
        if (request == null || request.jobs() == null || request.jobs().isEmpty()) {
            throw new InvalidRequestException(List.of(new FieldError("jobs", "must be a non-empty array")));
        }
        // More than were read can only be more than maxBatch (the reader keeps that many): refused,
        // never written short.
        if (request.count() > maxBatch || request.jobs().size() < request.count()) {
            throw new InvalidRequestException(List.of(new FieldError("jobs",
                    "must hold at most " + maxBatch + " jobs per call, got " + request.count())));
        }
        List<FieldError> errors = new ArrayList<>();
        List<NewJob> jobs = new ArrayList<>(request.jobs().size());
        for (int i = 0; i < request.jobs().size(); i++) {
            jobs.add(convert(request.jobs().get(i), "jobs[" + i + "].", errors));
            if (errors.size() >= 100) {
                break; // enough to fix; a 10,000-error answer helps nobody
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors);
        }
        return jobs;
    }

    private NewJob convert(JobRequest r, String path, List<FieldError> errors) {
        if (r == null) {
            errors.add(new FieldError(path.isEmpty() ? "body" : path.substring(0, path.length() - 1), "must be a job object"));
            return null;
        }
        String type = r.type();
        if (type == null || type.isBlank()) {
            errors.add(new FieldError(path + "type", "is required"));
        } else if (type.length() > MAX_TYPE_LENGTH) {
            errors.add(new FieldError(path + "type", "must be at most " + MAX_TYPE_LENGTH + " characters"));
        } else if (type.indexOf('\u0000') >= 0) {
            errors.add(new FieldError(path + "type", NUL));
        } else if (unpairedSurrogate(type)) {
            errors.add(new FieldError(path + "type", SURROGATE));
        }
        String payload = r.payload() == null ? null : r.payload().text();
        if (payload != null && payload.indexOf('\u0000') >= 0) {
            errors.add(new FieldError(path + "payload", NUL));
        } else if (payload != null && unpairedSurrogate(payload)) {
            errors.add(new FieldError(path + "payload", SURROGATE));
        } else if (payload != null) {
            JobLimits.payloadProblem(payload.getBytes(StandardCharsets.UTF_8).length)
                    .ifPresent(p -> errors.add(new FieldError(path + "payload", p)));
        }
        Instant dueAt = null;
        if (r.dueAt() != null) {
            try {
                dueAt = OffsetDateTime.parse(r.dueAt()).toInstant();
                JobLimits.dueAtProblem(dueAt, Instant.now()).ifPresent(p -> errors.add(new FieldError(path + "dueAt", p)));
            } catch (DateTimeParseException e) {
                errors.add(new FieldError(path + "dueAt", "must be an ISO-8601 date-time with offset, e.g. 2026-11-22T10:00:00Z; got '" + echo(r.dueAt()) + "'"));
            }
        }
        int maxAttempts = r.maxAttempts() == null ? defaultMaxAttempts : r.maxAttempts();
        if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS) {
            errors.add(new FieldError(path + "maxAttempts", "must be between 1 and " + MAX_ATTEMPTS + ", got " + maxAttempts));
        }
        Duration repeat = null;
        if (r.repeatEvery() != null) {
            repeat = Durations.parse(r.repeatEvery()).orElse(null);
            if (repeat == null) {
                errors.add(new FieldError(path + "repeatEvery", "must be a duration such as PT1M or 60s; got '" + echo(r.repeatEvery()) + "'"));
            } else {
                // Exact, as the engine checks a row's interval: whole seconds let 100 years and half a second through.
                JobLimits.repeatProblem(repeat.getSeconds() + repeat.getNano() / 1e9)
                        .ifPresent(p -> errors.add(new FieldError(path + "repeatEvery", p)));
                if (repeat.getNano() % 1_000_000 != 0) {
                    // Stored in milliseconds: PT1.0009S was kept as PT1S, and read back so.
                    errors.add(new FieldError(path + "repeatEvery", "must be a whole number of milliseconds, got '"
                            + echo(r.repeatEvery()) + "'"));
                }
            }
        }
        return new NewJob(type, payload, dueAt, maxAttempts, repeat);
    }

    private static String echo(String value) {
        return value.length() <= ECHO ? value : value.substring(0, ECHO) + "... (" + value.length() + " characters)";
    }

    static boolean unpairedSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }
}
