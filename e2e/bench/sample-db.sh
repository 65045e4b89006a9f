#!/usr/bin/env bash
# Samples the benchmark database every second while the in-cluster matrix runs, so a slow
# drain can be explained afterwards: what the job table's row versions did (inserted, updated,
# HOT-updated, deleted, dead), commits and rollbacks, autovacuum's visits, and every session
# that was not idle (its state, wait, transaction age, snapshot age and statement).
#
#   e2e/bench/sample-db.sh DIR SCHEMA      (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE set)
#
# Writes DIR/table.tsv (one line per second) and DIR/activity.tsv (one line per busy session per
# second); both carry the run's label from DIR/current, which matrix.sh writes before each run.
# Stops when DIR/stop exists. matrix.sh starts it when BENCH_SAMPLE=1.
set -uo pipefail
DIR=$1 SCHEMA=$2
mkdir -p "$DIR"
printf 'time\trun\tins\tupd\thot_upd\tdel\tlive\tdead\tautovacuums\tautoanalyzes\tlast_autovacuum\tcommits\trollbacks\tbusy_sessions\toldest_xact_s\toldest_xmin_age\n' >"$DIR/table.tsv"
printf 'time\trun\tpid\tapplication\tclient\tstate\twait\txact_s\tquery_s\txmin_age\tquery\n' >"$DIR/activity.tsv"
SQL_TABLE="
select to_char(clock_timestamp(), 'HH24:MI:SS.MS'), :'run',
       t.n_tup_ins, t.n_tup_upd, t.n_tup_hot_upd, t.n_tup_del, t.n_live_tup, t.n_dead_tup,
       t.autovacuum_count, t.autoanalyze_count, coalesce(to_char(t.last_autovacuum, 'HH24:MI:SS'), '-'),
       d.xact_commit, d.xact_rollback,
       (select count(*) from pg_stat_activity a where a.state <> 'idle' and a.pid <> pg_backend_pid()),
       (select coalesce(round(extract(epoch from max(clock_timestamp() - a.xact_start))::numeric, 1), 0)
          from pg_stat_activity a where a.xact_start is not null and a.pid <> pg_backend_pid()),
       (select coalesce(max(age(a.backend_xmin)), 0) from pg_stat_activity a where a.pid <> pg_backend_pid())
  from pg_stat_user_tables t, pg_stat_database d
 where t.schemaname = :'schema' and t.relname = 'job' and d.datname = current_database();"
SQL_ACTIVITY="
select to_char(clock_timestamp(), 'HH24:MI:SS.MS'), :'run', a.pid, a.application_name,
       coalesce(host(a.client_addr), 'local'), a.state,
       coalesce(a.wait_event_type || ':' || a.wait_event, '-'),
       coalesce(round(extract(epoch from clock_timestamp() - a.xact_start)::numeric, 2), 0),
       coalesce(round(extract(epoch from clock_timestamp() - a.query_start)::numeric, 2), 0),
       coalesce(age(a.backend_xmin), 0), left(regexp_replace(a.query, '\s+', ' ', 'g'), 160)
  from pg_stat_activity a
 where a.pid <> pg_backend_pid() and a.backend_type in ('client backend', 'autovacuum worker')
   and (a.state <> 'idle' or a.backend_type = 'autovacuum worker');"
until [[ -e $DIR/stop ]]; do
  run=$(cat "$DIR/current" 2>/dev/null || echo -)
  psql -X -q -At -F $'\t' -v run="$run" -v schema="$SCHEMA" <<<"$SQL_TABLE" >>"$DIR/table.tsv" 2>/dev/null
  psql -X -q -At -F $'\t' -v run="$run" <<<"$SQL_ACTIVITY" >>"$DIR/activity.tsv" 2>/dev/null
  sleep 1
done
