package io.drover.executor.api;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * The {@code Idempotency-Key} header of the enqueue calls: a producer that did not get an answer
 * (a timeout, a 503, a dropped connection) calls again with the same key and the same body, and
 * gets the jobs of the call that did commit instead of a second set (JobEnqueuer). As in the
 * IETF draft "The Idempotency-Key HTTP Header Field": a key reused with another request is
 * refused with 422.
 */
final class IdempotencyKeys {
    static final String HEADER = "Idempotency-Key";
    /** Set on an answer that repeats an earlier call's, as Stripe's API does. */
    static final String REPLAYED = "Idempotent-Replayed";
    static final int MAX_LENGTH = 255;
    static final String DESCRIPTION = "A key of the producer's choosing (1 to 255 visible ASCII characters, e.g. a UUID):"
            + " a call repeated with the same key and the same body within a day enqueues nothing and answers with the"
            + " first call's ids (header Idempotent-Replayed: true); with another body it is refused (422)";

    private IdempotencyKeys() {
    }

    /** The key, if it is one; else the 400 naming the header. */
    static String valid(String key) {
        if (key.isEmpty() || key.length() > MAX_LENGTH || !key.chars().allMatch(ch -> ch >= 0x21 && ch <= 0x7e)) {
            throw new InvalidRequestException(List.of(new FieldError(HEADER, "must be 1 to " + MAX_LENGTH
                    + " visible ASCII characters (no spaces), e.g. a UUID")));
        }
        return key;
    }

    /**
     * SHA-256 of the call and of every field of its jobs as sent, each length-prefixed and an
     * omitted one marked as such, so that no two requests read alike. As sent, not as the node
     * completes them: an omitted maxAttempts stays omitted, and a retry that reaches a node
     * with another maxAttempts setting is still the same request.
     */
    static byte[] request(String call, List<JobRequest> jobs) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        field(sha, call);
        for (JobRequest job : jobs) {
            field(sha, job.type());
            field(sha, job.payload() == null ? null : job.payload().json());
            field(sha, job.dueAt());
            field(sha, job.maxAttempts() == null ? null : job.maxAttempts().toString());
            field(sha, job.repeatEvery());
        }
        return sha.digest();
    }

    private static void field(MessageDigest sha, String value) {
        if (value == null) {
            sha.update((byte) 0);
            return;
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        sha.update((byte) 1);
        sha.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
        sha.update(bytes);
    }

    static KeyReusedException reused() {
        return new KeyReusedException();
    }

    static KeyInUseException inUse() {
        return new KeyInUseException();
    }

    /**
     * Answered 409 naming the header, with Retry-After (as Stripe answers a retry that overtakes
     * the call it repeats): another call with the key was still writing. Nothing was written.
     */
    static final class KeyInUseException extends RuntimeException {
        KeyInUseException() {
            super("is in use by another call that is still in progress; retry after it ends, with the same key and body");
        }

        ApiError body() {
            return new ApiError("conflict: " + HEADER + " " + getMessage(), List.of(new FieldError(HEADER, getMessage())));
        }
    }

    /** Answered 422 naming the header. Nothing was written. */
    static final class KeyReusedException extends RuntimeException {
        KeyReusedException() {
            super("was first used for a different request (another body, or the other enqueue call) within the last"
                    + " day; use a new key for a new request");
        }

        ApiError body() {
            return new ApiError("invalid request: " + HEADER + " " + getMessage(), List.of(new FieldError(HEADER, getMessage())));
        }
    }
}
