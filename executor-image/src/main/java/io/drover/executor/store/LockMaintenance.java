package io.drover.executor.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The statements that keep locks honest: renew ours, release ours, recover the dead's.
 *
 * <p>Every job recovered from a dead node becomes a suspect: it may have been running when its
 * node died (ordinary runs write nothing when they start), so its next runs are watched, each
 * with a start mark ({@link JobStarts}). Recovery tells the rest apart by {@code started_at}: a
 * job without one was queued there, or ran unwatched; it is unlocked, and nothing was charged.
 * A job with one was in a watched run: that is a crash: its attempt is given back (the handler
 * did not fail, its node died) and {@code crashes} goes up; at {@code maxCrashes} it moves to
 * dead letters as poison, with that reason, so a job that kills every node that runs it cannot
 * take down the fleet node by node.
 */
public final class LockMaintenance {
    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(LockMaintenance.class);
    /** Bounds one sweep: a backlog of expired locks larger than this is finished by the next sweeps. */
    private static final int MAX_PAGES = 100;

    private final String schema;
    private final String owner;
    private final String nodeName;
    private final long lockExpiryMillis;
    private final String renew;
    private final String stillHeld;
    private final String release;
    private final String releaseUnheld;
    private final String unheldLeft;
    private final String predecessors;
    private final String serverSettled;
    private final String notify;
    private final Recovery expired;
    private final Recovery expiredOne;
    private final String expiredPage;
    /** Expired locks the database refused to recover: sweeper thread only. */
    private final RefusedRows refused = new RefusedRows(REFUSED_FOR);
    /** How long a row whose recovery the database refused is left out of sweeps before it is tried again. */
    static final Duration REFUSED_FOR = Duration.ofMinutes(10);
    private final Recovery ofOwner;

    public LockMaintenance(JobSql sql, String owner, String nodeName, Duration lockExpiry, int maxCrashes) {
        this.schema = sql.tables().schema();
        this.owner = owner;
        this.nodeName = nodeName;
        this.lockExpiryMillis = lockExpiry.toMillis();
        this.renew = sql.renewLocks();
        this.stillHeld = sql.stillHeld();
        this.release = sql.releaseUnstarted();
        this.releaseUnheld = sql.releaseUnheld();
        this.unheldLeft = sql.unheldLeft();
        this.predecessors = sql.predecessors();
        this.serverSettled = sql.serverSettled();
        this.notify = sql.notifyJobs();
        this.expired = new Recovery(sql.recoverExpired(maxCrashes));
        this.expiredOne = new Recovery(sql.recoverExpiredOne(maxCrashes));
        this.expiredPage = sql.expiredPage();
        this.ofOwner = new Recovery(sql.recoverOwnedBy(maxCrashes));
    }

    /**
     * What a renewal did: the ids renewed; those whose row the database refused to update (a
     * user's trigger, a constraint: {@link SqlErrors#rowRefused}); and those still held whose row
     * another session had locked ({@code busy}: an open transaction that updated or locked it,
     * this node's own completion writing it), skipped rather than waited for. A held id in none
     * has lost its lock (swept while this node could not renew, e.g. frozen or cut off from the
     * database). A refused or busy one keeps its lock only until it expires, unless a later
     * renewal reaches it: another node may then sweep it.
     */
    public record Renewal(Set<Long> renewed, Set<Long> refused, Set<Long> busy) {
    }

    /**
     * Statements one renewal may spend finding the rows the database refuses: a few such rows
     * cost about two statements each per halving (ten halvings for a thousand locks). A refusal
     * of every row (a statement trigger, a revoked right that reads as a row's error) would cost
     * twice as many statements as locks, every turn: past this, it is the renewal that failed.
     */
    static final int REFUSAL_SEARCH_STATEMENTS = 64;

    /**
     * Extends the expiry of the given jobs that this node still holds, in one statement, skipping
     * rows another session has locked (told apart afterwards as busy, one more read). If the
     * database refuses it for a row, the rest are renewed by halves (a refused row's halves fail,
     * the others pass), so one row the database will not update does not let every other lock of
     * the node lapse, for other nodes to sweep and run again while this one runs them. Needs an
     * auto-commit connection (each half its own transaction), as the engine's pool gives.
     */
    public Renewal renew(Connection c, List<Long> ids) throws SQLException {
        Set<Long> renewed = new HashSet<>(ids.size() * 2);
        Set<Long> refused = new HashSet<>();
        renewInto(c, ids, renewed, refused, new int[] {REFUSAL_SEARCH_STATEMENTS});
        Set<Long> busy = Set.of();
        if (renewed.size() + refused.size() < ids.size()) {
            busy = stillHeld(c, ids.stream().filter(id -> !renewed.contains(id) && !refused.contains(id)).toList());
        }
        return new Renewal(renewed, refused, busy);
    }

    /** Of the given ids, those this node still holds (read without waiting for row locks). */
    private Set<Long> stillHeld(Connection c, List<Long> ids) throws SQLException {
        Set<Long> held = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(stillHeld)) {
            ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
            ps.setString(2, owner);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    held.add(rs.getLong(1));
                }
            }
        }
        return held;
    }

    private void renewInto(Connection c, List<Long> ids, Set<Long> renewed, Set<Long> refused, int[] budget)
            throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try {
            renewAll(c, ids, renewed);
        } catch (SQLException e) {
            if (!SqlErrors.rowRefused(e) || --budget[0] < 0) {
                throw e;
            }
            if (ids.size() == 1) {
                refused.add(ids.getFirst());
                return;
            }
            int half = ids.size() / 2;
            renewInto(c, ids.subList(0, half), renewed, refused, budget);
            renewInto(c, ids.subList(half, ids.size()), renewed, refused, budget);
        }
    }

    private void renewAll(Connection c, List<Long> ids, Set<Long> renewed) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(renew)) {
            ps.setLong(1, lockExpiryMillis);
            ps.setArray(2, c.createArrayOf("bigint", ids.toArray()));
            ps.setString(3, owner);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    renewed.add(rs.getLong(1));
                }
            }
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

    /**
     * Unlocks the rows locked under this node's owner that it does not hold (never started
     * here), so any node can take them now; see {@link JobSql#releaseUnheld}. In a transaction:
     * run late by a stalled server, after this node acquired more, it would unlock those too, so
     * it must commit only if this node is still there to send the COMMIT.
     */
    public int releaseUnheld(Connection c, Collection<Long> held) throws SQLException {
        int released = Transactions.run(c, () -> {
            try (PreparedStatement ps = c.prepareStatement(releaseUnheld)) {
                ps.setString(1, owner);
                ps.setArray(2, c.createArrayOf("bigint", held.toArray()));
                return ps.executeUpdate();
            }
        });
        return notifyIf(c, released);
    }

    /** Whether rows {@link #releaseUnheld} would release are left: those it skipped, locked by another transaction. */
    public boolean unheldLeft(Connection c, Collection<Long> held) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(unheldLeft)) {
            ps.setString(1, owner);
            ps.setArray(2, c.createArrayOf("bigint", held.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * Which of the given server sessions still run: {@code pids[i]}, on which this node gave up a
     * request {@code agesMillis[i]} ago. A session that ended can run nothing more.
     */
    public static Set<Integer> sessionsStillRunning(Connection c, int[] pids, long[] agesMillis) throws SQLException {
        Set<Integer> running = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(JobSql.SESSIONS_STILL_RUNNING)) {
            ps.setArray(1, c.createArrayOf("int", java.util.Arrays.stream(pids).boxed().toArray()));
            ps.setArray(2, c.createArrayOf("bigint", java.util.Arrays.stream(agesMillis).boxed().toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    running.add(rs.getInt(1));
                }
            }
        }
        return running;
    }

    /** What a recovery did: jobs unlocked for another run (of which {@code crashed} were running), and poison moved to dead letters. */
    public record Recovered(int unlocked, int crashed, int poisoned) {
        static final Recovered NONE = new Recovered(0, 0, 0);

        Recovered plus(Recovered o) {
            return new Recovered(unlocked + o.unlocked, crashed + o.crashed, poisoned + o.poisoned);
        }

        public int total() {
            return unlocked + poisoned;
        }
    }

    /**
     * Recovers jobs whose lock expired (their node stopped renewing: it is dead or cut off),
     * except the ones this node still holds.
     */
    public Recovered sweepExpired(Connection c, Collection<Long> held) throws SQLException {
        // A row the database will not let go (a foreign key onto the job table, a user's trigger)
        // fails its whole page, and since it is the oldest expired lock it would head every page
        // of every node's sweeps, and no dead node's job would be recovered again. That page is
        // recovered row by row, the row left out; the pages before it are committed and counted,
        // the next ones go on.
        Recovered r = expired.run(c, ps -> bindExpired(c, ps, held, refused.current()), () -> rowByRow(c, held));
        notifyIf(c, r.unlocked());
        return r;
    }

    /** The parameters of a selection of expired locks: owner, held ids, then the ids left out. */
    private void bindExpired(Connection c, PreparedStatement ps, Collection<Long> held, Long[] leftOut) throws SQLException {
        ps.setString(1, owner);
        ps.setArray(2, c.createArrayOf("bigint", held.toArray()));
        ps.setArray(3, c.createArrayOf("bigint", leftOut));
    }

    private Recovered rowByRow(Connection c, Collection<Long> held) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(expiredPage)) {
            bindExpired(c, ps, held, refused.current());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        Recovered total = Recovered.NONE;
        for (long id : ids) {
            try {
                total = total.plus(expiredOne.once(c, ps -> {
                    ps.setString(1, owner);
                    ps.setArray(2, c.createArrayOf("bigint", held.toArray()));
                    ps.setLong(3, id);
                }));
            } catch (SQLException e) {
                if (!SqlErrors.rowRefused(e)) {
                    throw e;
                }
                refused.add(id);
                LOG.errorf("The database refuses to recover job %d, whose node's lock expired (SQLState %s: %s): it"
                        + " stays locked, left out of sweeps for %d minutes, then tried again. A foreign key onto the"
                        + " job table, or a trigger, must let the executor delete and update job rows", id,
                        e.getSQLState(), e.getMessage(), REFUSED_FOR.toMinutes());
            }
        }
        return total;
    }

    /**
     * A predecessor found at startup: its owner id, and what releasing its rows did, or why they
     * were left to expire ({@code left}).
     */
    public record Predecessor(String owner, Recovered released, String left) {
    }

    /**
     * Releases the rows of earlier runs of this node's name at once, without waiting for their
     * locks to expire, but only those whose owner is proven gone: its presence lock is free
     * ({@link NodePresence}). A live node that happens to have the same name keeps its jobs.
     * Right after the server lost its sessions (a restart, crash recovery, a failover to a
     * promoted standby) every presence lock is free until the live nodes' sessions reconnect, so
     * then nothing is released: the locks expire. The server's start time alone did not tell:
     * crash recovery and a promotion keep it ({@link JobSql#serverSettled}).
     *
     * @param settled how long the server must have kept its sessions for presence locks to mean anything
     */
    public List<Predecessor> releasePredecessors(Connection c, Duration settled) throws SQLException {
        List<String> candidates = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(predecessors)) {
            ps.setString(1, nodeName + ":");
            ps.setString(2, owner);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    candidates.add(rs.getString(1));
                }
            }
        }
        List<Predecessor> found = new ArrayList<>();
        if (candidates.isEmpty()) {
            return found;
        }
        if (!serverSettled(c, settled)) {
            for (String p : candidates) {
                found.add(new Predecessor(p, null, "the database server restarted, recovered from a crash or failed"
                        + " over less than " + settled.toSeconds() + " s ago: live nodes may not have reconnected yet"));
            }
            return found;
        }
        for (String p : candidates) {
            Recovered released = Transactions.run(c, () -> {
                // Transaction-scoped: held only while its rows are released, then freed.
                if (!tryXactLock(c, NodePresence.key(schema, p))) {
                    return null;
                }
                Recovered r = ofOwner.run(c, ps -> ps.setString(1, p));
                notifyIf(c, r.unlocked());
                return r;
            });
            found.add(new Predecessor(p, released, released == null ? "it holds its presence lock: it is alive" : null));
        }
        return found;
    }

    private boolean serverSettled(Connection c, Duration settled) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(serverSettled)) {
            ps.setLong(1, settled.toMillis());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static boolean tryXactLock(Connection c, long key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(JobSql.TRY_PRESENCE_XACT_LOCK)) {
            ps.setLong(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private int notifyIf(Connection c, int jobs) throws SQLException {
        if (jobs > 0) {
            try (PreparedStatement ps = c.prepareStatement(notify)) {
                ps.execute();
            }
        }
        return jobs;
    }

    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    /** Recovers instead a page the database refused for one of its rows ({@link SqlErrors#rowRefused}). */
    @FunctionalInterface
    private interface RefusedPage {
        Recovered recover() throws SQLException;
    }

    /** Runs the two statements that recover a selection of locked rows, page by page. */
    private static final class Recovery {
        private final String poison;
        private final String unlock;

        Recovery(JobSql.RecoverySql sql) {
            this.poison = sql.poison();
            this.unlock = sql.unlock();
        }

        Recovered run(Connection c, Binder binder) throws SQLException {
            return run(c, binder, null);
        }

        /** @param refusedPage what recovers a page the database refused for one of its rows; null: the failure stands */
        Recovered run(Connection c, Binder binder, RefusedPage refusedPage) throws SQLException {
            Recovered total = Recovered.NONE;
            for (int i = 0; i < MAX_PAGES; i++) {
                Recovered page;
                try {
                    page = once(c, binder);
                } catch (SQLException e) {
                    if (refusedPage == null || !SqlErrors.rowRefused(e)) {
                        throw e;
                    }
                    page = refusedPage.recover();
                }
                total = total.plus(page);
                if (page.total() == 0) {
                    break;
                }
            }
            return total;
        }

        /**
         * One page, in a transaction (or the caller's), never auto-committed: a stalled server
         * (a storage stall, a paused VM) runs the requests queued in its sockets when it resumes,
         * with its clock past every lease nobody could renew meanwhile. An auto-committed unlock
         * sent before the stall then recovered the jobs that live nodes were running, after the
         * sweeping node had given up on it; in a transaction it waits for a COMMIT that node never
         * sends (LateStatementsTest). One round trip more per page, every sweep interval: nothing.
         */
        private Recovered once(Connection c, Binder binder) throws SQLException {
            return Transactions.run(c, () -> page(c, binder));
        }

        private Recovered page(Connection c, Binder binder) throws SQLException {
            int poisoned;
            try (PreparedStatement ps = c.prepareStatement(poison)) {
                binder.bind(ps);
                poisoned = ps.executeUpdate();
            }
            int unlocked = 0;
            int crashed = 0;
            try (PreparedStatement ps = c.prepareStatement(unlock)) {
                binder.bind(ps);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        unlocked++;
                        if (rs.getBoolean(1)) {
                            crashed++;
                        }
                    }
                }
            }
            return new Recovered(unlocked, crashed, poisoned);
        }
    }
}
