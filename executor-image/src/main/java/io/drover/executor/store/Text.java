package io.drover.executor.store;

/** Text as PostgreSQL can store it. */
public final class Text {
    private Text() {
    }

    /**
     * NUL characters escaped as the two characters {@code \0}: PostgreSQL text cannot hold them,
     * and one such error message would fail every write of its completion batch.
     */
    public static String storable(String text) {
        return text == null ? null : text.replace("\u0000", "\\0");
    }
}
