-- The whole cluster's gauge figures (drover_due_backlog, drover_due_lag_seconds,
-- drover_dead_letters), counted by one node per backlogRefreshInterval and read by the others.
-- Before, every node counted the backlog (up to 1,000,000 index entries) every few seconds, a
-- database cost that grew with the fleet. One row. UNLOGGED: no WAL for a row rewritten every
-- few seconds; a crash of the database empties it, and the next refresh counts again.
-- (A new table: no lock on the job table, so older nodes keep working during a rolling upgrade.)
set local lock_timeout = '5s';

create unlogged table fleet_figures (
    id            boolean primary key default true check (id),
    backlog       bigint not null,
    oldest_due_at timestamptz,
    dead_letters  bigint not null,
    counted_at    timestamptz not null
);
