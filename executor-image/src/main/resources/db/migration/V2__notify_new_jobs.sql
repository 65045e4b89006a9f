-- Wake idle executor nodes the moment jobs are inserted, instead of at their next poll
-- (acquireInterval). Statement-level, so a batch or COPY of 100,000 rows sends one
-- notification, and PostgreSQL folds identical notifications within a transaction; they
-- are delivered at commit, when the rows are visible. Every producer is covered: the API,
-- COPY, plain SQL from an application. The channel is "drover_<schema>".
create function notify_jobs_inserted() returns trigger language plpgsql as $$
begin
    perform pg_notify('drover_' || tg_table_schema, '');
    return null;
end
$$;

create trigger job_inserted_notify after insert on job
    for each statement execute function notify_jobs_inserted();
