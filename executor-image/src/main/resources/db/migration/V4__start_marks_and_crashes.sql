-- Attempts are charged when a job starts, not when a node locks it into its queue, and a node
-- that dies while running a job is counted apart from the job's own failures.
--
-- Rules for every migration from here on (they run while older nodes keep working during a
-- rolling upgrade): only changes that take their lock for an instant (add a nullable column, or
-- one with a constant default: no table rewrite since PostgreSQL 11), indexes with CREATE INDEX
-- CONCURRENTLY in a script of their own with executeInTransaction=false, and a lock_timeout
-- first thing, so a migration that would queue behind a long transaction (and stall every
-- executor behind its lock request) fails fast; the starting node retries it with back-off.
set local lock_timeout = '5s';

-- When a node started running the job (its start mark, written just before the handler runs
-- and in the same statement that charges the attempt); null while the job waits, queued or not.
-- A node that dies leaves its started jobs with started_at set: that is how recovery tells a
-- job that was running (a crash, counted) from one that was only queued (no charge at all).
alter table job add column started_at timestamptz;

-- Executor nodes that died while running this job. A job that keeps killing nodes (a JVM exit,
-- an out-of-memory) is moved to dead letters at the maxCrashes setting, with that reason.
alter table job add column crashes integer not null default 0;

-- Times a node handed the job back unrun because it had no handler for its type (e.g. an old
-- node during a rolling upgrade that adds the type). Bounded: see RetryPolicy.
alter table job add column deferrals integer not null default 0;

alter table dead_letter add column crashes integer not null default 0;
