package io.drover.executor.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * Writes a batch of job outcomes in one transaction, with one statement per kind of outcome
 * (array parameters), so a batch of 500 completions costs a handful of round trips instead of
 * 500. Every statement matches only rows still locked by this node: a job whose lock expired
 * and went to another node is not touched, and the shortfall is reported as lost locks.
 */
public final class CompletionWriter {
    private final String owner;
    private final String deleteDone;
    private final String rescheduleRecurring;
    private final String retry;
    private final String deadLetter;

    public CompletionWriter(Tables t, String owner) {
        this.owner = owner;
        this.deleteDone = "delete from " + t.job() + " where id = any(?) and locked_by = ?";
        // Next slot strictly after now on the timer's own grid: a timer that fell behind skips
        // the slots it missed instead of firing once for each of them.
        this.rescheduleRecurring = "update " + t.job() + " set due_at = due_at + repeat_interval"
                + " * (floor(extract(epoch from (now() - due_at)) / extract(epoch from repeat_interval)) + 1),"
                + " attempts = 0, locked_by = null, lock_expires_at = null, last_error = null,"
                + " version = version + 1 where id = any(?) and locked_by = ?";
        this.retry = "update " + t.job() + " j set locked_by = null, lock_expires_at = null,"
                + " due_at = now() + f.delay * interval '1 millisecond', last_error = f.error,"
                + " version = j.version + 1"
                + " from unnest(?::bigint[], ?::bigint[], ?::text[]) as f(id, delay, error)"
                + " where j.id = f.id and j.locked_by = ?";
        this.deadLetter = DeadLetterMove.sql(t, "unnest(?::bigint[], ?::text[]) as f(id, error)",
                "j.id = f.id and j.locked_by = ?", "f.error");
    }

    /** The outcomes of one batch, split by kind. */
    public record Batch(List<Long> done, List<Long> doneRecurring,
                        List<Long> retryIds, List<Long> retryDelays, List<String> retryErrors,
                        List<Long> deadIds, List<String> deadErrors) {
        public int size() {
            return done.size() + doneRecurring.size() + retryIds.size() + deadIds.size();
        }
    }

    /** @return the number of jobs written; less than {@code batch.size()} means lost locks */
    public int write(Connection c, Batch batch) throws SQLException {
        return Transactions.run(c, () -> {
            int written = 0;
            written += byIds(c, deleteDone, batch.done());
            written += byIds(c, rescheduleRecurring, batch.doneRecurring());
            if (!batch.retryIds().isEmpty()) {
                try (PreparedStatement ps = c.prepareStatement(retry)) {
                    ps.setArray(1, c.createArrayOf("bigint", batch.retryIds().toArray()));
                    ps.setArray(2, c.createArrayOf("bigint", batch.retryDelays().toArray()));
                    ps.setArray(3, c.createArrayOf("text", batch.retryErrors().toArray()));
                    ps.setString(4, owner);
                    written += ps.executeUpdate();
                }
            }
            if (!batch.deadIds().isEmpty()) {
                try (PreparedStatement ps = c.prepareStatement(deadLetter)) {
                    ps.setArray(1, c.createArrayOf("bigint", batch.deadIds().toArray()));
                    ps.setArray(2, c.createArrayOf("text", batch.deadErrors().toArray()));
                    ps.setString(3, owner);
                    written += ps.executeUpdate();
                }
            }
            return written;
        });
    }

    private int byIds(Connection c, String sql, List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
            ps.setString(2, owner);
            return ps.executeUpdate();
        }
    }
}
