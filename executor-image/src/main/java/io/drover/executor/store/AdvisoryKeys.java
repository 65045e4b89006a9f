package io.drover.executor.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** PostgreSQL advisory lock keys (64-bit) derived from names, so every node derives the same key. */
public final class AdvisoryKeys {
    private AdvisoryKeys() {
    }

    /** The first 8 bytes of SHA-256 of the name. Changing this changes every key: nodes of two versions would not exclude each other. */
    public static long of(String name) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            long k = 0;
            for (int i = 0; i < 8; i++) {
                k = (k << 8) | (digest[i] & 0xff);
            }
            return k;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
