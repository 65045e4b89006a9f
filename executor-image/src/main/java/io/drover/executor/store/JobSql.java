package io.drover.executor.store;

import io.drover.contract.JobSchema;

import java.util.List;

import static io.drover.contract.JobSchema.ACQUIRE_ORDER;
import static io.drover.contract.JobSchema.DUE_AND_UNLOCKED;
import static io.drover.contract.JobSchema.HELD;
import static io.drover.contract.JobSchema.UNLOCKED;

/**
 * Every statement the engine and the API send, in one place, so the job store's SQL reads as a
 * whole: which statements walk job_acquire_idx, which match only the rows this node holds, how
 * a row moves between the tables. The classes that run a statement bind its parameters and read
 * its rows; each statement's comment lists its JDBC {@code ?} parameters in order. Tables are
 * named with their schema ({@link Tables}); the acquisition index's order and the predicates
 * come from {@link JobSchema}, which the operator's KEDA query shares.
 *
 * <p>Statements that name no table are constants; the others are built for the schema. The
 * planner settings that pin the acquisition's plans stay in {@link IndexPlans}, beside why.
 */
public final class JobSql {
    private final Tables t;
    private final String job;

    public JobSql(Tables tables) {
        this.t = tables;
        this.job = tables.job();
    }

    public Tables tables() {
        return t;
    }

    // ---- Acquisition. The statements that read the backlog walk job_acquire_idx in order and
    // stop after the page; AcquisitionPlanTest checks each plan on a large backlog.

    /**
     * The re-check, in an update, that a row found by address is still unlocked: "no lock
     * expiry", which the table's constraint job_lock_consistent makes the same as "no owner".
     * Written as {@code locked_by is null}, it would match the predicate of job_acquire_idx and
     * make that index a candidate plan for the update's own row lookup: on statistics that call
     * the index empty (autovacuum visited while every job was held, then a burst arrived)
     * PostgreSQL chose to walk it whole for each page, and a 400,000-job backlog drained at
     * 4,300 instead of 20,000-35,000 jobs/s, pages cancelled by the Global lock's statement
     * timeout, until autovacuum ran again (AcquisitionPlanTest). No index is partial on it.
     */
    private static final String STILL_UNLOCKED = "lock_expires_at is null";

    /** Leaves out the rows the database refused to lock ({@link RefusedRows}); its parameter: their ids (bigint[]). */
    private static final String NOT_LEFT_OUT = "id <> all(?)";

    /** The transaction setting in which {@link #TRY_GLOBAL_LOCK} records whether it took the lock. */
    private static final String GLOBAL_LOCK_TAKEN = "drover.global_acquire_lock_taken";

    /**
     * True only in the transaction of a {@link #TRY_GLOBAL_LOCK} that took the lock. Outside one
     * the setting is unset (null: false) or, once a transaction of the session set it, '' (an
     * error: not a boolean), so a page statement that lost its try fails instead of idling.
     */
    private static final String GLOBAL_LOCK_TAKEN_HERE = "current_setting('" + GLOBAL_LOCK_TAKEN + "', true)::boolean";

    /**
     * The check, in a statement that names its rows by id, that this node still holds them (the
     * owner is its parameter): written {@code locked_by = ?}, it implies the predicate of the
     * partial index job_lock_expiry_idx ({@code locked_by is not null}, as {@code =} never
     * matches a null) and makes that index a candidate plan. On statistics taken while no job
     * was held (a burst analyzed before any node took it) PostgreSQL then walked that index
     * whole for each batch, reading every held row to find a page of ids, and a node's deletes
     * slowed as it held more (CompletionPlanTest: 20,000 held rows; a node once held 224,628).
     * {@code is not distinct from} is the same test for an owner, which is never null, and
     * implies nothing about nulls, so the primary key is the only index that finds the rows.
     */
    private static String heldByThisNode(String lockedBy) {
        return lockedBy + " is not distinct from ?";
    }

    /**
     * Locks the oldest due, unlocked jobs for this node (SkipLocked and Global modes). The
     * selection is an ordered range scan of job_acquire_idx that stops after the page; the update
     * then finds the rows by their physical address (ctid = any, a TID scan), so no join order
     * and no index choice is left to the statistics. It re-checks that each row is still unlocked
     * ({@link #STILL_UNLOCKED}), so a row changed between the scan and the update (swept,
     * deleted, taken) is skipped rather than stolen. Run with the plan pinned ({@link IndexPlans}).
     * The rows come back in TID order: {@code PageLocker} puts them in acquisition order.
     *
     * <p>Parameters: page size, owner, lock expiry (ms). Returns {@link AcquiredJob#COLUMNS}.
     *
     * <p>Global mode's page (no SKIP LOCKED: no other node locks rows meanwhile) follows
     * {@link #TRY_GLOBAL_LOCK} in the same transaction and takes rows only if that took the lock:
     * the check is a constant of the statement, so it gates the scan once (a one-time filter).
     *
     * @param skipLocked add FOR UPDATE SKIP LOCKED (SkipLocked mode); Global mode needs none
     */
    public String lockPage(boolean skipLocked) {
        return lockPage(skipLocked, false);
    }

    /**
     * {@link #lockPage} without the rows the database refused to lock ({@link RefusedRows}):
     * parameters: the ids left out (bigint[]), then lockPage's. A statement of its own, used
     * only while some row is left out, so the usual page binds no array.
     */
    public String lockPageLeavingOut(boolean skipLocked) {
        return lockPage(skipLocked, true);
    }

    private String lockPage(boolean skipLocked, boolean leavingOut) {
        return "with picked as (select ctid from " + job + " where " + DUE_AND_UNLOCKED
                + (leavingOut ? " and " + NOT_LEFT_OUT : "")
                + (skipLocked ? "" : " and " + GLOBAL_LOCK_TAKEN_HERE)
                + " order by " + ACQUIRE_ORDER + " limit ?"
                + (skipLocked ? " for update skip locked" : "")
                + ") update " + job + " j"
                + " set locked_by = ?, lock_expires_at = now() + ? * interval '1 millisecond',"
                + " version = " + nextVersion("j.version")
                + " where j.ctid = any(array(select ctid from picked)) and j." + STILL_UNLOCKED
                + " returning " + AcquiredJob.COLUMNS;
    }

    /**
     * Optimistic mode, step 1: the oldest due candidates, read without locking (plan pinned like
     * {@link #lockPage}). Parameter: page size. Returns id, version, ctid (as text).
     */
    public String selectCandidates() {
        return selectCandidates(false);
    }

    /**
     * {@link #selectCandidates} without the rows the database refused to lock
     * ({@link RefusedRows}). Parameters: the ids left out (bigint[]), page size.
     */
    public String selectCandidatesLeavingOut() {
        return selectCandidates(true);
    }

    private String selectCandidates(boolean leavingOut) {
        return "select id, version, ctid::text from " + job + " where " + DUE_AND_UNLOCKED
                + (leavingOut ? " and " + NOT_LEFT_OUT : "")
                + " order by " + ACQUIRE_ORDER + " limit ?";
    }

    /**
     * Locks the listed jobs that are still due and unlocked, for this node: the search, by
     * halves, for the rows the database refuses to lock, after a page failed on one
     * ({@code RefusedRowSearch}). Found by id (the primary key), then updated at their address,
     * as {@link #lockPage}; rows another session is locking are skipped (SKIP LOCKED, in every
     * mode), so the search never waits nor deadlocks with another node's page. Unlocked is
     * tested as {@link #STILL_UNLOCKED}, for the reason given there. Run with the plan pinned
     * ({@link IndexPlans}): a half may list tens of thousands of ids. Parameters: owner, lock
     * expiry (ms), ids (bigint[]). Returns {@link AcquiredJob#COLUMNS}.
     */
    public String lockListed() {
        return "update " + job + " j"
                + " set locked_by = ?, lock_expires_at = now() + ? * interval '1 millisecond',"
                + " version = " + nextVersion("j.version")
                + " where j.ctid = any(array(select ctid from " + job + " where id = any(?) and " + STILL_UNLOCKED
                + " and due_at <= now() for update skip locked)) and j." + STILL_UNLOCKED
                + " returning " + AcquiredJob.COLUMNS;
    }

    /**
     * Optimistic mode, step 2: claims one candidate if no node changed it since it was read; no
     * row updated means another node won it. Found at its address (a TID scan) and re-checked as
     * {@link #lockPage} does, for the same reason; the id and version make sure it is still the
     * row that was read (a changed or deleted row has left that address). Parameters: owner, lock
     * expiry (ms), ctid (text), id, version.
     */
    public String claimCandidate() {
        return "update " + job
                + " set locked_by = ?, lock_expires_at = now() + ? * interval '1 millisecond',"
                + " version = " + nextVersion("version")
                + " where ctid = ?::tid and id = ? and version = ? and " + STILL_UNLOCKED;
    }

    /**
     * Optimistic mode, step 3: the claimed jobs, in acquisition order. Parameters: ids (bigint[]),
     * owner. Returns {@link AcquiredJob#COLUMNS}.
     */
    public String readClaimed() {
        return "select " + AcquiredJob.COLUMNS + " from " + job
                + " j where j.id = any(?) and " + heldByThisNode("j.locked_by") + " order by j.due_at, j.id";
    }

    /**
     * Global mode, the first statement of an acquisition's one request (auto-commit: the request
     * is one transaction, committed at its end, which frees the lock): bounds the transaction as
     * {@link #TRY_BOUNDED_LOCK} does, tries the global acquire lock, and records in the
     * transaction whether it took it, for the page statement after it ({@link #lockPage} without
     * SKIP LOCKED), which then starts with a snapshot taken under the lock. Parameters: max hold
     * (ms, idle in transaction), max hold (ms, statement), the lock's key. The third column is
     * 'true' when the lock was taken. Should the request ever be split in two transactions (a
     * Sync between the statements), the page statement fails on the setting, reset to '' by the
     * first one's commit, instead of taking rows outside the lock or reporting an empty backlog.
     */
    public static final String TRY_GLOBAL_LOCK = "select set_config('idle_in_transaction_session_timeout', ?, true),"
            + " set_config('statement_timeout', ?, true),"
            + " set_config('" + GLOBAL_LOCK_TAKEN + "', pg_try_advisory_xact_lock(?)::text, true)";

    /**
     * Tries a transaction-scoped advisory lock once, without waiting, in the current transaction:
     * the fleet figures' count lock. One round trip: the timeouts that bound a hung holder are set
     * in the same statement, so the server ends a holder that freezes or is cut off, and the lock
     * is free again. Parameters: max hold (ms, idle in transaction), max hold (ms, statement), the
     * lock's key. The third column is true when the lock was taken.
     */
    public static final String TRY_BOUNDED_LOCK = "select set_config('idle_in_transaction_session_timeout', ?, true),"
            + " set_config('statement_timeout', ?, true),"
            + " pg_try_advisory_xact_lock(?)";

    /**
     * Milliseconds until the next unlocked job is due (negative if one is overdue, null when
     * none), for the acquirer's idle wait: min(due_at) is the first entry of job_acquire_idx.
     * Clamped to a day either side, so whatever a row holds ('infinity', year 1700) the answer
     * is a number of milliseconds.
     */
    public String nextDue() {
        return nextDue(false);
    }

    /**
     * {@link #nextDue} without the rows the database refused to lock ({@link RefusedRows}): one
     * of them, overdue for good, would end every idle wait at once. Parameter: the ids left
     * out (bigint[]).
     */
    public String nextDueLeavingOut() {
        return nextDue(true);
    }

    private String nextDue(boolean leavingOut) {
        return "select (extract(epoch from (greatest(least(min(due_at), now() + interval '1 day'),"
                + " now() - interval '1 day') - now())) * 1000)::bigint from " + job + " where " + UNLOCKED
                + (leavingOut ? " and " + NOT_LEFT_OUT : "");
    }

    // ---- Start: the writes right before a handler runs, each matching only rows this node
    // holds (JobStarts).

    /**
     * The start mark of suspects: charges the attempt, sets started_at, renews the lock, reads the
     * payload. Idempotent within one lock tenure: a mark written again (a retried batch, a commit
     * whose answer was lost) charges nothing more. Parameters: lock expiry (ms), ids (bigint[]),
     * owner. Returns id, attempts, payload.
     */
    public String markStarted() {
        return "update " + job + " set attempts = " + plusCapped("attempts", "case when started_at is null then 1 else 0 end") + ","
                + " started_at = coalesce(started_at, now()), lock_expires_at = now() + ? * interval '1 millisecond'"
                + " where id = any(?) and " + heldByThisNode("locked_by") + " returning id, attempts, payload";
    }

    /**
     * The payloads too large to come with the acquired row. Parameters: ids (bigint[]), owner.
     * Returns id, the attempt this run is, payload.
     */
    public String readPayloads() {
        return "select id, " + plusCapped("attempts", "1") + ", payload from " + job + " where id = any(?) and " + heldByThisNode("locked_by");
    }

    // ---- Completion: one statement per kind of outcome, over arrays whose first two are the
    // jobs' ids and lock tenures (but deleteDone's: ids only); each matches only rows this node
    // still holds in the tenure the outcome belongs to. The owner is always the last parameter.

    /**
     * The rows of a batch of outcomes, as FROM item {@code f}: ids (bigint[]) and tenures (int[],
     * the versions the acquisitions wrote), then the kind's own arrays.
     */
    private static String batch(String arrays, String columns) {
        return "unnest(?::bigint[], ?::int[]" + arrays + ") as f(id, version" + columns + ")";
    }

    /**
     * A batch's row in the tenure its outcome belongs to. Owner and id alone are not enough: an
     * outcome whose write committed but whose reply was lost is written again, and by then this
     * node may hold the row again (a retry due at once, a timer's next slot), running it anew;
     * the rewrite would have unlocked that run's row, and another acquisition run it beside it
     * (LostOutcomeReplyTest). Acquisitions and unlocks bump the version; nothing else does.
     */
    private static String inItsTenure() {
        return "j.id = f.id and j.version = f.version and " + heldByThisNode("j.locked_by");
    }

    /**
     * Writes of the shapes outcomes take (an update and a delete of job rows, an insert of a dead
     * letter) that change no row: whether the database takes the engine's writes at all (not
     * read-only, the tables there, the rights granted), as against one row's trouble (its
     * trigger, a foreign key onto it). No row-level trigger fires, since no row is touched; a
     * fault of the table's storage that fails every row's change passes too (the loop holds those
     * outcomes, and liveness says so once they are more than the node may hold).
     */
    public List<String> writeProbes() {
        return List.of("update " + job + " set version = version where false",
                "delete from " + job + " where false",
                "insert into " + t.deadLetter() + " select * from " + t.deadLetter() + " where false");
    }

    /**
     * Done: deleted. Parameters: ids (bigint[]), owner. The one outcome that needs no tenure: a
     * deleted row never comes back under its id (only a dead letter is moved back, and a done
     * job never was one since), so a delete written again finds nothing, whichever node holds
     * what. Kept to the primary key's {@code = any}, the drain's hot statement: as a join with
     * the tenures it cost the database about a fifth more per batch (pgbench, 256 rows).
     */
    public String deleteDone() {
        return "delete from " + job + " where id = any(?) and " + heldByThisNode("locked_by");
    }

    /**
     * A recurring timer's run succeeded: to its next slot, counters reset. Parameters: ids
     * (bigint[]), tenures (int[]), owner.
     */
    public String nextSlot() {
        return "update " + job + " j set " + nextSlotAssignments() + ", attempts = 0, crashes = 0, deferrals = 0,"
                + " suspect = false, last_error = null from " + batch("", "") + " where " + inItsTenure();
    }

    /**
     * A recurring timer's run failed: to its next slot all the same. Attempts keep counting
     * consecutive failures, for the API to show; they never end a timer. Parameters: ids
     * (bigint[]), tenures (int[]), errors (text[]), attempt deltas (int[]), owner.
     */
    public String nextSlotFailed() {
        return "update " + job + " j set " + nextSlotAssignments() + ", last_error = f.error,"
                + " attempts = " + ATTEMPTS_AFTER_RUN
                + " from " + batch(", ?::text[], ?::int[]", ", error, delta") + " where " + inItsTenure();
    }

    /**
     * Next slot strictly after now on the timer's own grid: a timer that fell behind skips the
     * slots it missed instead of firing once for each of them. The grid is the one grid_at
     * keeps while the timer was handed back off it ({@link #handedBack}), else due_at's.
     */
    private static String nextSlotAssignments() {
        String grid = "coalesce(j.grid_at, j.due_at)";
        return "due_at = " + grid + " + j.repeat_interval"
                + " * (floor(extract(epoch from (now() - " + grid + ")) / extract(epoch from j.repeat_interval)) + 1),"
                + " grid_at = null, locked_by = null, lock_expires_at = null, started_at = null, version = "
                + nextVersion("j.version");
    }

    /**
     * A job handed back, due again after f.delay: a recurring timer keeps a slot of its grid in
     * grid_at (the first hand-back's due_at, a slot; later ones keep it), since due_at leaves
     * the grid. Ordinary jobs have none.
     */
    private static String handedBack() {
        return "due_at = now() + f.delay * interval '1 millisecond', grid_at = " + gridSlot("j.");
    }

    /**
     * A slot of a recurring timer's grid (the one it keeps while off it, else its due date); null
     * for other jobs. {@code row} prefixes the columns: a table alias with its dot, or nothing.
     */
    private static String gridSlot(String row) {
        return "case when " + row + "repeat_interval is not null then coalesce(" + row + "grid_at, " + row + "due_at) end";
    }

    /**
     * Failed with attempts left: unlocked, due again after a delay. Parameters: ids (bigint[]),
     * tenures (int[]), delays (ms, bigint[]), errors (text[]), attempt deltas (int[]), owner.
     */
    public String retry() {
        return "update " + job + " j set locked_by = null, lock_expires_at = null, started_at = null,"
                + " " + handedBack() + ", last_error = f.error,"
                + " attempts = " + ATTEMPTS_AFTER_RUN + ", version = " + nextVersion("j.version")
                + " from " + batch(", ?::bigint[], ?::text[], ?::int[]", ", delay, error, delta")
                + " where " + inItsTenure();
    }

    /**
     * Handed back for another node (no handler on this node, or the handler's NotRunnableHere):
     * due again after a delay, deferrals + 1, attempts + delta (-1 gives back a watched run's
     * start mark). Parameters: ids (bigint[]), tenures (int[]), delays (ms, bigint[]), errors
     * (text[]), deltas (int[]), owner.
     */
    public String defer() {
        return "update " + job + " j set locked_by = null, lock_expires_at = null, started_at = null,"
                + " " + handedBack() + ", last_error = f.error, attempts = " + ATTEMPTS_AFTER_RUN + ","
                + " deferrals = " + plusCapped("j.deferrals", "1") + ", version = " + nextVersion("j.version")
                + " from " + batch(", ?::bigint[], ?::text[], ?::int[]", ", delay, error, delta") + " where " + inItsTenure();
    }

    /**
     * Failed for good: moved to dead letters. Parameters: ids (bigint[]), tenures (int[]), errors
     * (text[]), attempt deltas (int[]), owner.
     */
    public String deadLetter() {
        return moveToDeadLetters(batch(", ?::text[], ?::int[]", ", error, delta"), inItsTenure(), "f.error",
                ATTEMPTS_AFTER_RUN, "j.crashes");
    }

    // ---- Lock maintenance and recovery: renew ours, release ours, recover the dead's.

    /**
     * Extends the locks this node still holds, but not of rows another session has locked
     * (SKIP LOCKED): one row held in an open transaction (an update by hand in psql, left
     * uncommitted) made the whole renewal wait until its call timed out, and every lock of the
     * node lapsed, for other nodes to sweep and run again. Those rows are told apart afterwards
     * ({@link #stillHeld}). Found by address, as {@link #lockPage} does. Parameters: lock expiry
     * (ms), ids (bigint[]), owner. Returns id.
     */
    public String renewLocks() {
        return "update " + job + " j set lock_expires_at = now() + ? * interval '1 millisecond'"
                + " where j.ctid = any(array(select ctid from " + job + " where id = any(?) and "
                + heldByThisNode("locked_by") + " for no key update skip locked)) returning j.id";
    }

    /**
     * Which of the given jobs this node still holds, read without waiting for row locks: after a
     * renewal, the rows it skipped because another session had them locked. Parameters: ids
     * (bigint[]), owner. Returns id.
     */
    public String stillHeld() {
        return "select id from " + job + " where id = any(?) and " + heldByThisNode("locked_by");
    }

    /**
     * Unlocks jobs this node acquired but never started. Jobs that never started: nothing was
     * charged, nothing to give back. A row another session holds is skipped (it lapses after
     * lockExpiry): waiting for it held up the stopping node's release of all the others, up to the
     * server's statement_timeout. Parameters: ids (bigint[]), owner.
     */
    public String releaseUnstarted() {
        return "update " + job + " j set locked_by = null, lock_expires_at = null, version = " + nextVersion("j.version")
                + " from (select id from " + job + " where id = any(?) and " + heldByThisNode("locked_by")
                + " and started_at is null for no key update skip locked) x where j.id = x.id";
    }

    /**
     * Whether rows that {@link #releaseUnheld} would release are left, locked rows included (read
     * without waiting for them): a release that skipped every row another transaction held (a
     * late renewal still running) released none, and the rows waited for their lock to expire.
     * Rows whose lock has expired are the sweep's, so the answer turns false within lockExpiry.
     * Parameters: owner, held ids (bigint[]). Returns one boolean.
     */
    public String unheldLeft() {
        return "select exists (select 1 from " + job + " where locked_by = ? and started_at is null and not (id = any(?))"
                + " and lock_expires_at > now())";
    }

    /**
     * Unlocks the rows locked under this node's owner that it does not hold: queued jobs it
     * dropped unstarted when their lease ran out, and the page of an acquisition that the server
     * ran after the node had given up on it (a stalled server runs the requests it kept when it
     * resumes). Rows with a start mark are left to the sweep, which counts their crash. Rows
     * another transaction has locked are skipped, not waited for (a late sweep page waiting for
     * its COMMIT would hold the acquisition thread up to the statement timeout). Run only while no
     * acquisition of this node can be under way ({@code StrayLocks}). Parameters: owner, held ids
     * (bigint[]).
     */
    public String releaseUnheld() {
        return "update " + job + " j set locked_by = null, lock_expires_at = null, version = " + nextVersion("j.version")
                + " from (select id from " + job + " where locked_by = ? and started_at is null and not (id = any(?))"
                + " for update skip locked) x where j.id = x.id";
    }

    /**
     * Of the given server sessions (pid, and milliseconds since the node gave up on a request it
     * sent there), the ones still running: client sessions of this role on this database (the
     * node's own are always visible to it) that started before then; a pid that the server gave
     * to a session started since, or a server process of another kind (after a failover to
     * another server), is not the session asked about. Parameters: pids (int[]), ages (bigint[]).
     * Returns pid.
     */
    public static final String SESSIONS_STILL_RUNNING = "select a.pid from pg_stat_activity a"
            + " join unnest(?::int[], ?::bigint[]) as s(pid, age_ms) on a.pid = s.pid"
            + " where a.backend_type = 'client backend' and a.usename = current_user and a.datname = current_database()"
            + " and a.backend_start <= now() - s.age_ms * interval '1 millisecond'";

    /**
     * The other owners holding rows under this node's name: earlier runs of it. Parameters: the
     * name followed by ':', this node's owner. Returns locked_by.
     */
    public String predecessors() {
        return "select distinct locked_by from " + job
                + " where " + HELD + " and starts_with(locked_by, ?) and locked_by <> ?";
    }

    /**
     * A producer session notifies at most once per this interval: the insert trigger
     * (V6__notify_at_most_every_10ms_per_session.sql, its {@code notify_interval_ms}) skips the
     * notification of an insert that follows the session's last one by less. A node woken by a
     * notification therefore acquires again once this interval has passed ({@code AcquisitionLoop}).
     */
    public static final java.time.Duration NOTIFY_INTERVAL = java.time.Duration.ofMillis(10);

    /** Released and recovered jobs are due now: wake idle nodes as an insert would (never skipped). */
    public String notifyJobs() {
        return "select pg_notify('" + t.channel() + "', '')";
    }

    /**
     * Recovers rows whose lock expired: of other owners, and ours only for rows this node no
     * longer tracks (it never sweeps a job it still holds: after an outage it renews them
     * instead), except the rows left out (whose recovery the database refused). Parameters of
     * both statements: owner, held ids (bigint[]), ids left out (bigint[]).
     */
    public RecoverySql recoverExpired(int maxCrashes) {
        return recovery(maxCrashes, EXPIRED + " and id <> all(?)", "lock_expires_at");
    }

    /** Rows whose lock expired, as {@link #recoverExpired} selects them; parameters: owner, held ids (bigint[]). */
    private static final String EXPIRED = HELD + " and lock_expires_at < now() and not (locked_by = ? and id = any(?))";

    /**
     * One row of {@link #recoverExpired}'s: for a page the database refused, row by row, to find
     * the row it refuses (LockMaintenance). Parameters of both statements: owner, held ids
     * (bigint[]), the id.
     */
    public RecoverySql recoverExpiredOne(int maxCrashes) {
        return recovery(maxCrashes, EXPIRED + " and id = ?", "id");
    }

    /**
     * The ids of one page of {@link #recoverExpired}, without locking them. Parameters: owner,
     * held ids (bigint[]), ids left out (bigint[]).
     */
    public String expiredPage() {
        return "select id from " + job + " where " + EXPIRED + " and id <> all(?) order by lock_expires_at limit "
                + RECOVERY_PAGE;
    }

    /** Recovers every row of one owner (a predecessor proven gone). Parameter of both statements: that owner. */
    public RecoverySql recoverOwnedBy(int maxCrashes) {
        return recovery(maxCrashes, "locked_by = ?", "id");
    }

    /**
     * The two statements that recover one page of a selection of locked rows, both with the
     * selection's parameters: {@code poison} moves the jobs whose node died during a watched run
     * for the {@code maxCrashes}-th time to dead letters; {@code unlock} unlocks the rest as
     * suspects, giving a crashed run's attempt back, and returns whether each was running.
     */
    public record RecoverySql(String poison, String unlock) {
    }

    /** Rows handled per recovery statement; recovery loops while pages come back. */
    private static final int RECOVERY_PAGE = 1000;

    private RecoverySql recovery(int maxCrashes, String where, String order) {
        String page = "select id, started_at is not null as running from " + job + " where " + where
                + " order by " + order + " limit " + RECOVERY_PAGE + " for update skip locked";
        String crash = plusCapped("j.crashes", "1");
        String poison = moveToDeadLetters("(" + page + ") x",
                "j.id = x.id and j.started_at is not null and " + crash + " >= " + maxCrashes,
                "'poison: ' || (" + crash + ") || ' executor nodes died while running it (the last: '"
                        + " || j.locked_by || ')'",
                "greatest(j.attempts, 1) - 1", crash);
        String unlock = "update " + job + " j set locked_by = null, lock_expires_at = null, started_at = null,"
                + " suspect = true, version = " + nextVersion("j.version") + ","
                + " attempts = case when x.running then greatest(j.attempts, 1) - 1 else j.attempts end,"
                + " crashes = " + plusCapped("j.crashes", "case when x.running then 1 else 0 end") + ","
                + " last_error = case when x.running then 'node ' || j.locked_by || ' died while running it'"
                + " || ' (crash ' || (" + crash + ") || ' of at most " + maxCrashes + ")' else j.last_error end"
                + " from (" + page + ") x where j.id = x.id and (not x.running or " + crash + " < " + maxCrashes + ")"
                + " returning x.running";
        return new RecoverySql(poison, unlock);
    }

    /**
     * The one statement that moves job rows to dead letters: a DELETE ... RETURNING feeding an
     * INSERT, so a row is in exactly one of the two tables at every instant.
     *
     * @param using    FROM items for the DELETE, e.g. an unnest of ids and errors
     * @param where    condition on {@code j} (and the using items) selecting the rows
     * @param error    SQL expression for the error text
     * @param attempts the attempts to record (recovery gives back the attempt of a crash)
     * @param crashes  the crashes to record
     */
    private String moveToDeadLetters(String using, String where, String error, String attempts, String crashes) {
        return "with moved as (delete from " + job + " j using " + using
                + " where " + where
                + " returning j.id, j.type, j.payload, " + attempts + " as attempts, j.max_attempts, j.repeat_interval, "
                + error + " as error, j.due_at, j.created_at, " + crashes + " as crashes, " + gridSlot("j.") + " as grid_at)"
                + " insert into " + t.deadLetter()
                + " (id, type, payload, attempts, max_attempts, repeat_interval, error, due_at, created_at, crashes, grid_at)"
                + " select id, type, payload, attempts, max_attempts, repeat_interval, error, due_at, created_at, crashes, grid_at"
                + " from moved on conflict (id) do update set type = excluded.type, payload = excluded.payload,"
                + " attempts = excluded.attempts, max_attempts = excluded.max_attempts,"
                + " repeat_interval = excluded.repeat_interval, error = excluded.error,"
                + " due_at = excluded.due_at, created_at = excluded.created_at, crashes = excluded.crashes,"
                + " grid_at = excluded.grid_at, failed_at = now()";
    }

    // ---- Session and presence: the node's long-lived connection, and the presence locks that
    // prove a node alive (NodePresence).

    /** Subscribes the session to the schema's channel (new and released jobs). */
    public String listen() {
        return "listen " + t.channel();
    }

    /**
     * A round trip that proves the session's connection alive, and answers whether its server
     * takes only reads (a replica: the old primary after a failover; or a role or database that
     * defaults to read-only transactions), which answers every read as a healthy one would.
     */
    public static final String PING_READ_ONLY =
            "select pg_is_in_recovery() or current_setting('transaction_read_only')::boolean";

    /**
     * What the session's connection lets go of before it goes back to the pool, one statement at
     * a time: its presence lock (the node's only session-level advisory lock), then its LISTEN.
     */
    public static final java.util.List<String> LET_GO = java.util.List.of("select pg_advisory_unlock_all()", "unlisten *");

    /** Takes a node's presence lock for the session, without waiting. Parameter: the presence key. */
    public static final String TRY_PRESENCE_LOCK = "select pg_try_advisory_lock(?)";

    /**
     * Takes another owner's presence key for the current transaction only, without waiting: true
     * proves that owner gone. Parameter: the presence key.
     */
    public static final String TRY_PRESENCE_XACT_LOCK = "select pg_try_advisory_xact_lock(?)";

    /**
     * Notes that the server keeps its sessions from now on, if no node has noted it since the
     * server last lost them: a node's session runs it as it (re)connects. The table is unlogged
     * (V10): PostgreSQL empties it in crash recovery and on a standby promoted after a failover,
     * events that end every session but keep pg_postmaster_start_time().
     */
    public String noteServerEpoch() {
        String epoch = t.serverEpoch();
        return "insert into " + epoch + " (began_at) select now() where not exists (select 1 from " + epoch + ")";
    }

    /**
     * Whether the server has kept its sessions long enough for free presence locks to mean
     * anything: since the postmaster started, and since the first session noted after the server
     * last lost its sessions ({@link #noteServerEpoch}); not at all if none has. Parameter: how
     * long (ms).
     */
    public String serverSettled() {
        return "select now() - greatest(pg_postmaster_start_time(), coalesce((select min(began_at) from "
                + t.serverEpoch() + "), now())) >= ? * interval '1 millisecond'";
    }

    // ---- API queries: reads and administrative writes for the REST API and the gauges.

    /**
     * One job as the API shows it, with its status: running (locked by a node), scheduled (due
     * later) or due. Parameter: id.
     */
    public String findJob() {
        return "select id, type, " + API_PAYLOAD + ","
                + " case when " + HELD + " then 'running' when due_at > now() then 'scheduled' else 'due' end,"
                + " due_at, attempts, max_attempts, " + REPEAT_MILLIS + ", locked_by, left(last_error, " + API_ERROR_CHARS
                + "), created_at, " + PAYLOAD_OMITTED + " from " + job + " where id = ?";
    }

    /**
     * Due backlog, future timers, running jobs and dead letters, each counted up to
     * {@link JobQueries#COUNT_CAP}: counting a backlog of millions would cost seconds on every call.
     */
    public String counts() {
        String capped = "(select count(*) from (select 1 from %s where %s limit " + JobQueries.COUNT_CAP + ") x)";
        return "select "
                + capped.formatted(job, DUE_AND_UNLOCKED) + ", "
                + capped.formatted(job, UNLOCKED + " and due_at > now()") + ", "
                + capped.formatted(job, HELD) + ", "
                + capped.formatted(t.deadLetter(), "true");
    }

    /**
     * The gauges' figures: due jobs no node holds (capped), how late the oldest of them is in
     * seconds (0 when none), dead letters (capped). The first two walk the partial index the
     * acquisition uses (job_acquire_idx): min(due_at) is its first entry. Returns backlog, lag in
     * seconds, dead letters.
     */
    public String countFleetFigures() {
        return "select backlog, " + LAG + ", dead_letters from (" + countDueFigures() + ") f";
    }

    /**
     * {@link #countFleetFigures} stored for the other nodes ({@link #readFleetFigures}), in one
     * statement. Returns backlog, lag in seconds, dead letters.
     */
    public String countAndStoreFleetFigures() {
        return "insert into " + t.fleetFigures() + " as f (id, backlog, oldest_due_at, dead_letters, counted_at)"
                + " select true, backlog, oldest_due_at, dead_letters, now() from (" + countDueFigures() + ") c"
                + " on conflict (id) do update set backlog = excluded.backlog, oldest_due_at = excluded.oldest_due_at,"
                + " dead_letters = excluded.dead_letters, counted_at = excluded.counted_at"
                + " returning backlog, " + LAG + ", dead_letters";
    }

    /**
     * The figures a node counted, the lag taken at this moment from the oldest due time it saw,
     * and their age in milliseconds (by the database's clock). No row before the first count, nor
     * after a crash of the database (the table is unlogged). Returns backlog, lag in seconds, dead
     * letters, age.
     */
    public String readFleetFigures() {
        return "select backlog, " + LAG + ", dead_letters, (extract(epoch from now() - counted_at) * 1000)::bigint"
                + " from " + t.fleetFigures();
    }

    private static final String LAG = "coalesce(extract(epoch from now() - oldest_due_at), 0)";

    private String countDueFigures() {
        return "select"
                + " (select count(*) from (select 1 from " + job + " where " + DUE_AND_UNLOCKED
                + " limit " + JobQueries.COUNT_CAP + ") x) as backlog,"
                + " (select min(due_at) from " + job + " where " + DUE_AND_UNLOCKED + ") as oldest_due_at,"
                + " (select count(*) from (select 1 from " + t.deadLetter() + " limit " + FleetFigures.DEAD_LETTER_GAUGE_CAP
                + ") y) as dead_letters";
    }

    /**
     * A timer's period in milliseconds, which the API shows as ISO-8601 ({@code PT1M}): the
     * interval's own text ({@code 00:01:00}) is no format the API takes back.
     */
    private static final String REPEAT_MILLIS = "(extract(epoch from repeat_interval) * 1000)::bigint";

    /** The database's encoding and name (DatabaseEncoding). */
    static final String SERVER_ENCODING = "select current_setting('server_encoding'), current_database()";

    /** The first statement of a transaction whose reads must see one snapshot. */
    static final String ONE_SNAPSHOT = "set transaction isolation level repeatable read, read only";

    /**
     * A payload as the API shows it: none past the most an enqueue takes (a row written with SQL,
     * dead-lettered as too large, can hold up to a gigabyte), which one read would have to hold in
     * the node's memory twice over; {@link #PAYLOAD_OMITTED} says so. octet_length reads a
     * stored value's size from its header, without reading the value.
     */
    private static final String API_PAYLOAD = "case when octet_length(payload) > " + JobLimits.MAX_PAYLOAD_BYTES
            + " then null else payload end";
    private static final String PAYLOAD_OMITTED = "coalesce(octet_length(payload) > " + JobLimits.MAX_PAYLOAD_BYTES + ", false)";
    /** The engine stores errors of at most 4,000 characters; one written with SQL is shown up to this. */
    private static final int API_ERROR_CHARS = 65_536;

    /** The dead-letter columns the API reads, in order. */
    private static final String DEAD_COLUMNS = "id, type, " + API_PAYLOAD + ", attempts, max_attempts, " + REPEAT_MILLIS
            + ", left(error, " + API_ERROR_CHARS + "), due_at, created_at, failed_at, " + PAYLOAD_OMITTED;

    /**
     * A page of dead letters by id, keyset-paged (stable while rows come and go), of at most
     * {@code limit} rows, ending with the row that brings its payloads and errors to a budget of
     * bytes (so past it by at most one row of 1 MiB and an error): a page of a thousand 1 MiB payloads took 2 GiB of the node's memory to answer,
     * and a dashboard polling it restarted nodes. A page may so hold fewer than {@code limit}
     * rows with more after it; the last page is an empty one. Parameters: after id, limit, byte budget.
     */
    public String deadLetterPage() {
        // What the page shows: an omitted payload counts nothing, an error as far as it is shown.
        String bytes = "(case when octet_length(payload) > " + JobLimits.MAX_PAYLOAD_BYTES + " then 0"
                + " else coalesce(octet_length(payload), 0) end) + least(coalesce(octet_length(error), 0), " + API_ERROR_CHARS * 4 + ")";
        return "select " + DEAD_COLUMNS + " from " + t.deadLetter() + " where id in (select id from"
                + " (select id, sum(bytes) over (order by id rows unbounded preceding) - bytes as before from"
                + " (select id, " + bytes + " as bytes from " + t.deadLetter() + " where id > ? order by id limit ?) page) sized"
                + " where before < ?) order by id";
    }

    /** One dead letter. Parameter: id. */
    public String findDeadLetter() {
        return "select " + DEAD_COLUMNS + " from " + t.deadLetter() + " where id = ?";
    }

    /**
     * Moves a dead letter back into the job table under its own id, due now, with fresh
     * attempts. One statement: the job is never in both tables, nor in neither. Parameter: id.
     *
     * <p>Its version starts at a random number, not the column's default: the row comes back
     * under an id it had before, and a node may still be writing that earlier row's outcome (a
     * dead letter whose first write's reply was lost). Outcomes match the tenure by version
     * ({@link #deleteDone}); from 0, the new row's first tenure would have the version that
     * earlier row's first tenure had, and that outcome would dead-letter it again mid-run.
     */
    public String retryDeadLetter() {
        // Due now, and a recurring timer keeps its grid: its next slot counts from grid_at, not from
        // the retry's moment (dead letters older nodes wrote have none: their due_at anchors it).
        return "with moved as (delete from " + t.deadLetter() + " where id = ? returning *)"
                + " insert into " + job + " (id, type, payload, due_at, attempts, max_attempts,"
                + " repeat_interval, last_error, created_at, version, grid_at) overriding system value"
                + " select id, type, payload, now(), 0, max_attempts, repeat_interval,"
                + " 'retried from dead letters; previous error: ' || error, created_at,"
                + " 1 + floor(random() * 2147483000)::int,"
                + " " + gridSlot("") + " from moved";
    }

    /** Parameter: id. */
    public String deleteDeadLetter() {
        return "delete from " + t.deadLetter() + " where id = ?";
    }

    // ---- Enqueue.

    /**
     * One new job, due at the given instant or now. Parameters: type, payload, due at (null for
     * now), max attempts, repeat interval (ms, null for a one-shot job). Generates id.
     */
    public String insertJob() {
        return "insert into " + job
                + " (type, payload, due_at, max_attempts, repeat_interval)"
                + " values (?, ?, coalesce(?, now()), ?, ? * interval '1 millisecond')";
    }

    /** How long an enqueue call's idempotency key holds: a producer's retries come within it. */
    public static final String ENQUEUE_KEY_TTL = "1 day";

    /**
     * Takes an idempotency key for this call: inserts it, or takes over an expired one. Returns a
     * row if the key is this call's now; none if a live key exists (a committed earlier call: read
     * it with {@link #enqueueKeyOf}). A concurrent call with the same key waits here until the
     * other commits or rolls back. Parameters: key, request (sha-256).
     */
    public String claimEnqueueKey() {
        return "insert into " + t.enqueueKey() + " as k (key, request, ids) values (?, ?, '{}')"
                + " on conflict (key) do update set request = excluded.request, ids = '{}', created_at = now()"
                + " where k.created_at < now() - interval '" + ENQUEUE_KEY_TTL + "' returning true";
    }

    /**
     * How long a keyed call waits for another call holding the same key (a retry sent while the
     * first is still writing) before it is answered that the key is in use. Without it, a call
     * whose transaction hangs (a connection black-holed mid-write, until socketTimeout) held
     * every retry of its producer on the shared pool's connections.
     */
    public static final String ENQUEUE_KEY_WAIT = "10s";

    /** Bounds the wait of this transaction's claim of a key (ENQUEUE_KEY_WAIT). */
    public String claimWaitsAtMost() {
        return "set local lock_timeout = '" + ENQUEUE_KEY_WAIT + "'";
    }

    /** After the claim: the rest of the transaction waits as the session does (a 55P03 then is no key's). */
    public String claimWaitEnds() {
        return "set local lock_timeout to default";
    }

    /** Parameters: ids (bigint[]), key. */
    public String setEnqueueKeyIds() {
        return "update " + t.enqueueKey() + " set ids = ? where key = ?";
    }

    /** The earlier call of a key. Parameter: key. Returns request, ids. */
    public String enqueueKeyOf() {
        return "select request, ids from " + t.enqueueKey() + " where key = ?";
    }

    /**
     * Removes a few expired keys: each keyed call does, so the table holds about a day of keys
     * with no loop of its own. Skips keys another call is removing.
     */
    public String pruneEnqueueKeys() {
        return "delete from " + t.enqueueKey() + " where key in (select key from " + t.enqueueKey()
                + " where created_at < now() - interval '" + ENQUEUE_KEY_TTL + "' order by created_at limit 10"
                + " for update skip locked)";
    }

    /**
     * The next version of a row: wraps at the int's end instead of failing. A row written with
     * plain SQL at version 2147483647 made every page that reached it fail with "integer out of
     * range", on every node, for good; the optimistic check only compares versions for equality.
     */
    private static String nextVersion(String column) {
        return column + " % 2147483647 + 1";
    }

    /**
     * A row's attempts after a run's outcome: the batch's delta (+1 a failed run no start mark
     * charged, 0, or -1 to give a mark's charge back), capped, never below 0. A give-back applies
     * only to a row that carries a mark (started_at, which only the mark sets, and every unlock
     * clears): a worker whose mark's answer was lost gives back a charge it cannot know was made
     * ({@code JobStarter.FATE_UNKNOWN}).
     */
    private static final String ATTEMPTS_AFTER_RUN = "greatest(" + plusCapped("j.attempts",
            "case when f.delta < 0 and j.started_at is null then 0 else f.delta end") + ", 0)";

    /**
     * A counter plus a small delta (attempts, crashes, deferrals), capped below the int's end so
     * a statement over many rows never fails on one row's counter; such a row is dead-lettered
     * before it starts ({@code JobLimits.countersProblem}).
     */
    private static String plusCapped(String column, String delta) {
        return "(least(" + column + ", 2147483646) + " + delta + ")";
    }
}
