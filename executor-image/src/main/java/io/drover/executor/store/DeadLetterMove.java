package io.drover.executor.store;

/**
 * Builds the one statement that moves job rows to dead letters: a DELETE ... RETURNING feeding
 * an INSERT, so a row is in exactly one of the two tables at every instant.
 */
final class DeadLetterMove {
    private DeadLetterMove() {
    }

    /**
     * @param using extra FROM items for the DELETE (may be empty), e.g. an unnest of ids and errors
     * @param where condition on {@code j} (and the using items) selecting the rows
     * @param error SQL expression for the error text
     */
    static String sql(Tables t, String using, String where, String error) {
        return sql(t, using, where, error, "j.attempts", "j.crashes");
    }

    /** As above, with the attempts and crashes to record (recovery gives back the attempt of a crash). */
    static String sql(Tables t, String using, String where, String error, String attempts, String crashes) {
        return "with moved as (delete from " + t.job() + " j" + (using.isEmpty() ? "" : " using " + using)
                + " where " + where
                + " returning j.id, j.type, j.payload, " + attempts + " as attempts, j.max_attempts, j.repeat_interval, "
                + error + " as error, j.due_at, j.created_at, " + crashes + " as crashes)"
                + " insert into " + t.deadLetter()
                + " (id, type, payload, attempts, max_attempts, repeat_interval, error, due_at, created_at, crashes)"
                + " select id, type, payload, attempts, max_attempts, repeat_interval, error, due_at, created_at, crashes"
                + " from moved on conflict (id) do update set type = excluded.type, payload = excluded.payload,"
                + " attempts = excluded.attempts, max_attempts = excluded.max_attempts,"
                + " repeat_interval = excluded.repeat_interval, error = excluded.error,"
                + " due_at = excluded.due_at, created_at = excluded.created_at, crashes = excluded.crashes,"
                + " failed_at = now()";
    }
}
