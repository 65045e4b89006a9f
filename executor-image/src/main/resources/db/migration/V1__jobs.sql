-- Drover job store. Flyway runs this in the executor's own schema (setting `schema`,
-- default "drover"); table names are unqualified so the schema is the search_path.

-- One table holds jobs and timers: a timer is simply a job whose due_at is in the future,
-- and a recurring timer has repeat_interval set. Keeping them in one table means a due timer
-- needs no "move to the job table" step (Flowable's timer->job copy, which made its timers
-- ~40% slower than plain jobs).
create table job (
    id               bigint generated always as identity primary key,
    type             text        not null,
    payload          text,
    due_at           timestamptz not null default now(),
    -- Counted when a node locks the job, so a job that kills its node (OOM, crash) still
    -- exhausts its attempts and ends in dead letters instead of looping forever.
    attempts         integer     not null default 0,
    max_attempts     integer     not null default 3 check (max_attempts >= 1),
    repeat_interval  interval check (repeat_interval is null or repeat_interval > interval '0'),
    -- Lock owner: "<nodeName>:<bootId>", unique per process lifetime.
    locked_by        text,
    lock_expires_at  timestamptz,
    -- Row version for the Optimistic lock mode's compare-and-set.
    version          integer     not null default 0,
    last_error       text,
    created_at       timestamptz not null default now(),
    constraint job_lock_consistent check ((locked_by is null) = (lock_expires_at is null))
);

-- Acquisition: "unlocked and due, oldest first, limit n". A partial index on due_at over
-- unlocked rows only serves it as an ordered range scan that stops after n entries, and
-- stays small because locked (in-flight) rows drop out of it. The same index answers the
-- backlog count (due, unlocked) and the "when is the next timer due" peek.
create index job_acquire_idx on job (due_at) where locked_by is null;

-- Recovery sweep: "locked rows whose lock expired". Partial over locked rows, so it is as
-- small as the number of jobs in flight, however large the backlog.
create index job_lock_expiry_idx on job (lock_expires_at) where locked_by is not null;

-- Jobs that exhausted their attempts, or could never run (unknown type, bad payload).
-- Nothing is lost: the row keeps everything needed to re-enqueue it.
create table dead_letter (
    id               bigint      primary key,   -- the job's id
    type             text        not null,
    payload          text,
    attempts         integer     not null,
    max_attempts     integer     not null,
    repeat_interval  interval,
    error            text        not null,
    due_at           timestamptz not null,
    created_at       timestamptz not null,
    failed_at        timestamptz not null default now()
);

create index dead_letter_failed_at_idx on dead_letter (failed_at);

-- The Global lock mode needs no table: it uses a transaction-scoped PostgreSQL advisory
-- lock, which the server frees the moment the holder commits, rolls back or loses its
-- connection. See GlobalAcquireLock.
