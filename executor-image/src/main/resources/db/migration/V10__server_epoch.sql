-- When this server last lost what it does not make durable: an unlogged table, which PostgreSQL
-- empties in crash recovery (a backend killed, the server restarting all sessions) and on a
-- standby promoted after a failover. A starting node releases the jobs of an earlier run of its
-- name only when that run's presence lock is free and the server has kept its sessions long
-- enough for a live run's session to have reconnected (LockMaintenance.releasePredecessors).
-- pg_postmaster_start_time() alone missed both events: it stays the postmaster's start.
-- The first node to look after such an event writes the row (JobSql.serverSettled).
set local lock_timeout = '5s';

create unlogged table server_epoch (began_at timestamptz not null);
