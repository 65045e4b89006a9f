-- Attempts are charged by a run, not when a node locks the job into its queue, and a node that
-- dies while running a job is counted apart from the job's own failures.
--
-- Rules for every migration from here on (they run while older nodes keep working during a
-- rolling upgrade): only changes that take their lock for an instant (add a nullable column, or
-- one with a constant default: no table rewrite since PostgreSQL 11), indexes with CREATE INDEX
-- CONCURRENTLY in a script of their own with executeInTransaction=false, and a lock_timeout
-- first thing, so a migration that would queue behind a long transaction (and stall every
-- executor behind its lock request) fails fast; the starting node retries it with back-off.
set local lock_timeout = '5s';

-- A node died holding this job (its lock expired, or its restarted successor released it), so
-- the job may have been running when it died. Its next runs are watched: each writes a start
-- mark before the handler runs. Ordinary jobs start without that extra write.
alter table job add column suspect boolean not null default false;

-- When a watched run started (its start mark, which also charges the attempt); null otherwise.
-- A node that dies during a watched run leaves started_at set: that is how recovery tells a
-- crash (counted) from a job that was only queued.
alter table job add column started_at timestamptz;

-- Executor nodes that died while running this job. A job that keeps killing nodes (a JVM exit,
-- an out-of-memory) is moved to dead letters at the maxCrashes setting, with that reason.
alter table job add column crashes integer not null default 0;

-- Times a node handed the job back unrun because it had no handler for its type (e.g. an old
-- node during a rolling upgrade that adds the type). Bounded: see RetryPolicy.
alter table job add column deferrals integer not null default 0;

alter table dead_letter add column crashes integer not null default 0;
