-- Idempotency keys of enqueue calls (the HTTP API's Idempotency-Key header): a producer that
-- calls again with the same key, because it lost the answer to a call that did commit, gets the
-- jobs of the first call instead of a second set. A key is written in the transaction of its
-- jobs, so it exists exactly when they were enqueued. Kept for a day (JobSql.ENQUEUE_KEY_TTL);
-- each keyed call removes a few expired ones. Logged: a key lost in a crash of the database
-- would enqueue its jobs twice.
-- (A new table: no lock on the job table, so older nodes keep working during a rolling upgrade.)
set local lock_timeout = '5s';

create table enqueue_key (
    key         text primary key,
    request     bytea not null,      -- SHA-256 of the call and its jobs: a key reused for another request is refused
    ids         bigint[] not null,
    created_at  timestamptz not null default now()
);
create index enqueue_key_created_at_idx on enqueue_key (created_at);
