package io.drover.executor.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;

/** The statements that keep locks honest: renew ours, release ours, recover the dead's. */
public final class LockMaintenance {
    /** Expired locks handled per sweep statement; the sweep loops while pages come back full. */
    static final int SWEEP_PAGE = 1000;

    private final String owner;
    private final String nodeName;
    private final long lockExpiryMillis;
    private final String renew;
    private final String release;
    private final String releasePredecessors;
    private final String sweepDead;
    private final String sweepUnlock;
    private final String notify;

    public LockMaintenance(Tables t, String owner, String nodeName, Duration lockExpiry) {
        this.owner = owner;
        this.nodeName = nodeName;
        this.lockExpiryMillis = lockExpiry.toMillis();
        this.renew = "update " + t.job() + " set lock_expires_at = now() + ? * interval '1 millisecond'"
                + " where id = any(?) and locked_by = ?";
        // Jobs that never started: give their attempt back, they did not use it.
        this.release = "update " + t.job() + " set locked_by = null, lock_expires_at = null,"
                + " attempts = greatest(attempts - 1, 0), version = version + 1"
                + " where id = any(?) and locked_by = ?";
        // A predecessor may have died while running the job, so the attempt stays counted.
        this.releasePredecessors = "update " + t.job() + " set locked_by = null, lock_expires_at = null,"
                + " version = version + 1, last_error = 'released at restart of node ' || ?"
                + " where locked_by is not null and starts_with(locked_by, ?) and locked_by <> ?";
        // Released and recovered jobs are due now: wake idle nodes as an insert would.
        this.notify = "select pg_notify('" + t.channel() + "', '')";
        String expired = "select id from " + t.job()
                + " where locked_by is not null and lock_expires_at < now() %s"
                + " order by lock_expires_at limit " + SWEEP_PAGE + " for update skip locked";
        // A job whose node died on each of its attempts is likely what kills nodes (OOM, a
        // crash in native code): it ends in dead letters instead of taking down node after node.
        this.sweepDead = DeadLetterMove.sql(t, "(" + expired.formatted("and attempts >= max_attempts") + ") x",
                "j.id = x.id",
                "'lock of ' || j.locked_by || ' expired on its last attempt ' || j.attempts"
                        + " || ' of ' || j.max_attempts || ': the node presumably died running it'");
        this.sweepUnlock = "update " + t.job() + " j set locked_by = null, lock_expires_at = null,"
                + " version = j.version + 1, last_error = 'lock of ' || j.locked_by || ' expired'"
                + " from (" + expired.formatted("and attempts < max_attempts") + ") x where j.id = x.id";
    }

    /** Extends the expiry of the given jobs that this node still holds. */
    public int renew(Connection c, Collection<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        try (PreparedStatement ps = c.prepareStatement(renew)) {
            ps.setLong(1, lockExpiryMillis);
            ps.setArray(2, c.createArrayOf("bigint", ids.toArray()));
            ps.setString(3, owner);
            return ps.executeUpdate();
        }
    }

    /** Unlocks jobs this node acquired but never started, so any node can take them now. */
    public int release(Connection c, Collection<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        int released;
        try (PreparedStatement ps = c.prepareStatement(release)) {
            ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
            ps.setString(2, owner);
            released = ps.executeUpdate();
        }
        return notifyIf(c, released);
    }

    private int notifyIf(Connection c, int jobs) throws SQLException {
        if (jobs > 0) {
            execute(c, notify);
        }
        return jobs;
    }

    /**
     * Unlocks jobs held by earlier incarnations of this node name. In a StatefulSet at most one
     * pod has a given name, so when it starts its predecessor is certainly dead and there is no
     * need to wait for the locks to expire.
     */
    public int releasePredecessors(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(releasePredecessors)) {
            ps.setString(1, nodeName);
            ps.setString(2, nodeName + ":");
            ps.setString(3, owner);
            return notifyIf(c, ps.executeUpdate());
        }
    }

    /** The result of one sweep: jobs unlocked for another try, and jobs moved to dead letters. */
    public record Sweep(int unlocked, int deadLettered) {
    }

    /** Recovers jobs whose lock expired: the node that held them stopped renewing, so it is dead. */
    public Sweep sweepExpired(Connection c) throws SQLException {
        int unlocked = 0;
        int dead = 0;
        int page;
        do {
            int d = execute(c, sweepDead);
            int u = execute(c, sweepUnlock);
            dead += d;
            unlocked += u;
            page = Math.max(d, u);
        } while (page == SWEEP_PAGE);
        notifyIf(c, unlocked);
        return new Sweep(unlocked, dead);
    }

    private static int execute(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            return ps.executeUpdate();
        }
    }
}
