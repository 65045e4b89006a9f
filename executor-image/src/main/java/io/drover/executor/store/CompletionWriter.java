package io.drover.executor.store;

import org.postgresql.PGConnection;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a batch of job outcomes in one transaction, with one statement per kind of outcome
 * (array parameters), so a batch of 500 completions costs a handful of round trips instead of
 * 500. Every statement matches only rows still locked by this node in the tenure the outcome
 * belongs to (the row's version at acquisition): a job whose lock expired and went to another
 * node is not touched, nor one this node acquired again after the outcome's first write
 * committed unseen (its reply lost, the batch written again); the shortfall is reported as lost
 * locks.
 *
 * <p>An outcome the database refuses (a value out of range, a violated check, a user trigger
 * that raises) must not block the outcomes batched with it, nor the node's completion pipeline:
 * the batch is then written outcome by outcome, and each refused one is moved to dead letters
 * with the database's reason. A failure of the attempt rather than of the outcome (an
 * unreachable database, a deadlock, a lock or statement timeout: {@link SqlErrors#worthRetrying})
 * is thrown, and the caller writes the batch again: a job that succeeded is never dead-lettered
 * because its row was locked for a while. A failure of another kind (a revoked permission, the
 * server's own I/O error, or a user trigger raising one of those for some rows) is the row's if
 * the database took other writes of the batch, and is dead-lettered with the reason; if it took
 * none, it is the node's or the server's, and the batch is thrown back to be written again: the
 * outcomes of jobs that ran, succeeded among them, are not dead-lettered for it, and the node's
 * health says what fails.
 */
public final class CompletionWriter {
    /** How an outcome changes its row. */
    public enum Kind {
        /** Done: deleted. */
        DONE,
        /** A recurring timer's run succeeded: to its next slot, counters reset. */
        NEXT_SLOT,
        /** A recurring timer's run failed: to its next slot (never off its grid, never ended by failures). */
        NEXT_SLOT_FAILED,
        /** Failed with attempts left: unlocked, due again after a delay. */
        RETRY,
        /** Handed back unrun (no handler on this node): due again after a delay, deferrals + 1. */
        DEFER,
        /** Failed for good: moved to dead letters. */
        DEAD
    }

    /**
     * One outcome to write. {@code attemptDelta} is what the run changes in {@code attempts}: +1
     * for a failed run that no start mark charged yet, 0 for one a start mark charged, -1 to give
     * back a start mark's charge (the node cut the run short; the handler did not fail), which
     * changes only a row that carries a mark (started_at): a mark whose answer was lost is given
     * back whether it went in or not.
     * {@code version} is the lock tenure the outcome belongs to ({@code AcquiredJob.version}).
     */
    public record Entry(Kind kind, long id, int version, long delayMillis, String error, int attemptDelta) {
    }

    /** The outcomes of one batch. */
    public static final class Batch {
        private final List<Entry> entries = new ArrayList<>();

        public Batch add(Entry e) {
            entries.add(e);
            return this;
        }

        public int size() {
            return entries.size();
        }

        public List<Entry> entries() {
            return entries;
        }
    }

    /**
     * What a write did: rows written (less than the batch: lost locks), outcomes refused by the
     * database (moved to dead letters instead), and outcomes that could not be written at all,
     * not even as dead letters (e.g. a user trigger that refuses every change of the row): those
     * rows stay locked until their locks expire.
     */
    public record Result(int written, List<Long> refused, List<Long> unwritable) {
    }

    private final String owner;
    private final String deleteDone;
    private final String nextSlot;
    private final String nextSlotFailed;
    private final String retry;
    private final String defer;
    private final String deadLetter;
    private final List<String> writeProbes;

    public CompletionWriter(JobSql sql, String owner) {
        this.owner = owner;
        this.deleteDone = sql.deleteDone();
        this.nextSlot = sql.nextSlot();
        this.nextSlotFailed = sql.nextSlotFailed();
        this.retry = sql.retry();
        this.defer = sql.defer();
        this.deadLetter = sql.deadLetter();
        this.writeProbes = sql.writeProbes();
    }

    /** Writes the batch; see the class comment for outcomes the database refuses. */
    public Result write(Connection c, Batch batch) throws SQLException {
        try {
            return new Result(writeAll(c, batch.entries()), List.of(), List.of());
        } catch (SQLException e) {
            if (SqlErrors.worthRetrying(e)) {
                throw e; // the whole batch again, later: nothing in it was refused
            }
        }
        // Outcome by outcome: a row's own failure (rowRefused) is dead-lettered with its reason.
        // Another failure (58030, XX001, a 42 from a user trigger) may be the row's or the
        // server's: it is taken for the row's when the database took other writes of this batch,
        // or, when it took none, writes that touch no row (writeProbes); for the server's when
        // that fails too, and then the whole batch is written again later. (Without the probe an
        // outcome refused alone was retried for good, holding up every outcome behind it until
        // liveness restarted the node, and the job ran again after each restart.)
        int written = 0;
        boolean accepted = false; // the database took some write of this batch
        List<Long> refused = new ArrayList<>();
        List<Long> unwritable = new ArrayList<>();
        Map<Entry, SQLException> unclear = new LinkedHashMap<>();
        for (Entry entry : batch.entries()) {
            try {
                written += writeAll(c, List.of(entry));
                accepted = true;
            } catch (SQLException e) {
                if (SqlErrors.worthRetrying(e)) {
                    throw e;
                }
                if (SqlErrors.rowRefused(e)) {
                    written += deadLetter(c, entry, e, refused, unwritable);
                    accepted |= refused.contains(entry.id());
                } else {
                    unclear.put(entry, e);
                }
            }
        }
        if (!unclear.isEmpty() && !accepted && !takesWrites(c)) {
            throw unclear.values().iterator().next(); // the database takes no write: the server's trouble
        }
        for (Map.Entry<Entry, SQLException> e : unclear.entrySet()) {
            written += deadLetter(c, e.getKey(), e.getValue(), refused, unwritable);
        }
        return new Result(written, refused, unwritable);
    }

    /** Whether the database takes writes of the outcomes' shapes that touch no row (writeProbes). */
    private boolean takesWrites(Connection c) throws SQLException {
        for (String probe : writeProbes) {
            try (PreparedStatement ps = c.prepareStatement(probe)) {
                ps.executeUpdate();
            } catch (SQLException e) {
                if (SqlErrors.worthRetrying(e)) {
                    throw e;
                }
                return false;
            }
        }
        return true;
    }

    /** Moves the job of a refused outcome to dead letters with the reason; the rows changed. */
    private int deadLetter(Connection c, Entry entry, SQLException why, List<Long> refused, List<Long> unwritable)
            throws SQLException {
        Entry dead = new Entry(Kind.DEAD, entry.id(), entry.version(), 0,
                "its outcome could not be stored (" + entry.kind() + "): " + Text.storable(why.getMessage()),
                entry.attemptDelta());
        try {
            int rows = writeAll(c, List.of(dead));
            refused.add(entry.id());
            return rows;
        } catch (SQLException deadFailed) {
            if (SqlErrors.worthRetrying(deadFailed)) {
                throw deadFailed;
            }
            unwritable.add(entry.id());
            return 0;
        }
    }

    /**
     * Writes the entries in one transaction. Outcomes of one kind (a drain's batches are all
     * DONE) are one statement, which runs in auto-commit mode as its own transaction: one round
     * trip, where a BEGIN with it and a COMMIT after it were two.
     */
    private int writeAll(Connection c, List<Entry> entries) throws SQLException {
        Map<Kind, List<Entry>> byKind = new EnumMap<>(Kind.class);
        for (Entry e : entries) {
            byKind.computeIfAbsent(e.kind(), k -> new ArrayList<>()).add(e);
        }
        return byKind.size() == 1 ? writeGroups(c, byKind) : Transactions.run(c, () -> writeGroups(c, byKind));
    }

    private int writeGroups(Connection c, Map<Kind, List<Entry>> byKind) throws SQLException {
        int written = 0;
        for (Map.Entry<Kind, List<Entry>> group : byKind.entrySet()) {
            List<Entry> es = group.getValue();
            written += switch (group.getKey()) {
                case DONE -> update(c, deleteDone, ids(c, es));
                case NEXT_SLOT -> update(c, nextSlot, ids(c, es), versions(c, es));
                case NEXT_SLOT_FAILED -> update(c, nextSlotFailed, ids(c, es), versions(c, es), errors(c, es),
                        deltas(c, es));
                case RETRY -> update(c, retry, ids(c, es), versions(c, es), delays(c, es), errors(c, es), deltas(c, es));
                case DEFER -> update(c, defer, ids(c, es), versions(c, es), delays(c, es), errors(c, es), deltas(c, es));
                case DEAD -> update(c, deadLetter, ids(c, es), versions(c, es), errors(c, es), deltas(c, es));
            };
        }
        return written;
    }

    // Primitive arrays through PGConnection.createArrayOf are sent in binary. Boxed Object[]
    // through java.sql.Connection were sent as text: a Long, a Long.toString and its escaping per
    // job, 5% of what a no-op drain allocated (JFR, 100,000 jobs on 2 nodes).
    private static java.sql.Array ids(Connection c, List<Entry> es) throws SQLException {
        long[] ids = new long[es.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = es.get(i).id();
        }
        return c.unwrap(PGConnection.class).createArrayOf("bigint", ids);
    }

    private static java.sql.Array versions(Connection c, List<Entry> es) throws SQLException {
        int[] versions = new int[es.size()];
        for (int i = 0; i < versions.length; i++) {
            versions[i] = es.get(i).version();
        }
        return c.unwrap(PGConnection.class).createArrayOf("int", versions);
    }

    private static java.sql.Array delays(Connection c, List<Entry> es) throws SQLException {
        long[] delays = new long[es.size()];
        for (int i = 0; i < delays.length; i++) {
            delays[i] = es.get(i).delayMillis();
        }
        return c.unwrap(PGConnection.class).createArrayOf("bigint", delays);
    }

    private static java.sql.Array deltas(Connection c, List<Entry> es) throws SQLException {
        int[] deltas = new int[es.size()];
        for (int i = 0; i < deltas.length; i++) {
            deltas[i] = es.get(i).attemptDelta();
        }
        return c.unwrap(PGConnection.class).createArrayOf("int", deltas);
    }

    private static java.sql.Array errors(Connection c, List<Entry> es) throws SQLException {
        return c.createArrayOf("text", es.stream().map(e -> Text.storable(e.error())).toArray());
    }

    /** Binds the arrays in order, then this node's owner id as the last parameter. */
    private int update(Connection c, String sql, java.sql.Array... arrays) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < arrays.length; i++) {
                ps.setArray(i + 1, arrays[i]);
            }
            ps.setString(arrays.length + 1, owner);
            return ps.executeUpdate();
        }
    }
}
