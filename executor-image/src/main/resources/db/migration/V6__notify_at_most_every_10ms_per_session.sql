-- A producer session notifies at most once per notify_interval_ms (JobSql.NOTIFY_INTERVAL).
-- A transaction that called pg_notify takes a database-wide lock at commit and keeps it until
-- its WAL flush is done, so committing producers take turns instead of sharing a flush: with
-- 16 producers inserting one job per transaction, NOTIFY cut the rate to 0.39 of the rate
-- without it (make bench at 94f6f08, "Enqueue path"). A busy producer now notifies once per
-- interval, and every node woken by a notification acquires again just over one interval later
-- (AcquisitionLoop), which finds the jobs committed meanwhile without a notification of their own.
-- The last notification's time lives in a session setting: no shared row for producers to
-- fight over. It is per session and rolls back with the transaction (a rolled-back notification
-- was never sent); the schema is part of it, so a session writing to two schemas notifies both.
set local lock_timeout = '5s'; -- the migration rules of V4

create or replace function notify_jobs_inserted() returns trigger language plpgsql as $$
declare
    notify_interval_ms constant integer := 10;
    now_ms bigint := (extract(epoch from clock_timestamp()) * 1000)::bigint;
    last text := coalesce(current_setting('drover.notified', true), '');
    since_ms bigint;
begin
    -- Only a mark of this trigger's form counts: a value set by hand never fails the insert.
    if split_part(last, ' ', 1) = tg_table_schema and split_part(last, ' ', 2) ~ '^[0-9]{1,18}$' then
        since_ms := now_ms - split_part(last, ' ', 2)::bigint;
        -- Within the interval (and no clock stepped back: then notify): the nodes woken by this
        -- session's last notification acquire again in time to find the rows.
        if since_ms >= 0 and since_ms < notify_interval_ms then
            return null;
        end if;
    end if;
    perform pg_notify('drover_' || tg_table_schema, '');
    perform set_config('drover.notified', tg_table_schema || ' ' || now_ms, false);
    return null;
end
$$;
