package io.drover.executor.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Rows the database refused to update for one of the engine's statements (a user's trigger, a
 * constraint: {@link SqlErrors#rowRefused}), each left out of that statement for a while, then
 * tried again: the refusal may be lifted (a trigger fixed, a maintenance window over).
 * Without it a refused row, which stays what the statement selects first (the oldest due job,
 * the oldest expired lock), would fail every page of every node for good. One instance per
 * statement's loop, used by that loop's thread only.
 */
public final class RefusedRows {
    /** Beyond this many, the oldest refusal is forgotten early (tried again sooner), so memory and the statement's array stay bounded. */
    private static final int MAX_ROWS = 10_000;

    private final Map<Long, Long> until = new LinkedHashMap<>();
    private final long leftOutNanos;

    /** @param leftOutFor how long a refused row is left out before it is tried again */
    public RefusedRows(Duration leftOutFor) {
        this.leftOutNanos = leftOutFor.toNanos();
    }

    public void add(long id) {
        if (until.size() >= MAX_ROWS) {
            until.remove(until.keySet().iterator().next());
        }
        until.put(id, System.nanoTime() + leftOutNanos);
    }

    /** The ids left out now, for the statement's array parameter; forgets those whose time is up. */
    public Long[] current() {
        forgetPast();
        return until.keySet().toArray(Long[]::new);
    }

    /**
     * The statement to run now: {@code leavingOut} (its list parameter bound by
     * {@link Choice#bind}) when rows are left out, else {@code usual}, which binds no list, so
     * the usual page's statement is unchanged by this class.
     */
    public Choice choose(String usual, String leavingOut) {
        return none() ? new Choice(usual, null) : new Choice(leavingOut, current());
    }

    /** A statement chosen by {@link #choose}, and the ids it leaves out (null: none, no parameter). */
    public record Choice(String sql, Long[] ids) {
        /** Binds the ids left out at {@code index}, if the statement takes them; returns the next parameter's index. */
        public int bind(Connection c, PreparedStatement ps, int index) throws SQLException {
            if (ids == null) {
                return index;
            }
            ps.setArray(index, c.createArrayOf("bigint", ids));
            return index + 1;
        }
    }

    /** True when no row is left out now (the statement needs no list). */
    public boolean none() {
        forgetPast();
        return until.isEmpty();
    }

    private void forgetPast() {
        if (until.isEmpty()) {
            return; // the usual case, on every page: nothing to allocate
        }
        long now = System.nanoTime();
        until.values().removeIf(t -> now - t > 0);
    }
}
