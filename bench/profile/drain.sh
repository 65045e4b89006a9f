#!/usr/bin/env bash
# The profiling harness of docs/benchmarks/profile.md: N executor nodes (the packaged service,
# separate JVMs, as LocalFleet starts them) drain JOBS no-op jobs seeded in one transaction, and
# the nodes' CPU per job is printed: utime+stime of every thread (JIT and GC included) from the
# seed until the table is empty, plus a per-thread split (threads.py).
#
# usage: bench/profile/drain.sh APPDIR NODES JOBS LABEL
#   APPDIR  a quarkus-app directory (executor-image/target/quarkus-app, or a copy of an older build)
#   env     PGHOST PGPORT PGUSER PGPASSWORD PGDATABASE: a PostgreSQL the nodes and psql reach
#           WARM=N   drain N jobs first (JIT-warm nodes)
#           JAVA_OPTS  more node JVM flags (e.g. -XX:TieredStopAtLevel=1)
#           NO_DIRECTIVES=1  without the build's JIT directives (APPDIR/jvm/compiler-directives.json,
#                    passed as the image passes them when the build has the file)
#           THREADS  worker threads per node (8)
#           PERF=1   record `perf` over the drain (perf report --sort comm,dso); the nodes' JIT
#                    symbols are written to /tmp/perf-<pid>.map, so compiled Java frames have names
#           JAVA=bench/profile/jfr-node.sh  JFR from each node's launch into $JFRDIR
# Results in target/profile/LABEL/ (result.txt, threads.txt, node logs, metrics).
set -euo pipefail
APP=$1; NODES=$2; JOBS=$3; LABEL=$4
HERE=$(cd "$(dirname "$0")" && pwd)
JAVA=${JAVA:-${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java}
: "${PGHOST:=127.0.0.1}" "${PGPORT:=5432}" "${PGUSER:=drover}" "${PGDATABASE:=postgres}"
export PGHOST PGPORT PGUSER PGDATABASE
PSQL="psql -qAtX"
command -v psql >/dev/null || PSQL="$(ls /usr/lib/postgresql/*/bin/psql | head -1) -qAtX"
OUT=target/profile/$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
SCHEMA=drover_profile
$PSQL -c "drop schema if exists $SCHEMA cascade" >/dev/null
TCK=$(getconf CLK_TCK)
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
threads() { for p in "${PIDS[@]}"; do for t in /proc/"$p"/task/*; do
  echo "$p $(basename "$t") $(tr ' ' '_' <"$t/comm") $(awk '{print $14"_"$15"_"$10}' "$t/stat")_$(awk \
    '/^voluntary_ctxt/ {v=$2} /^nonvoluntary_ctxt/ {n=$2} END {print v"_"n}' "$t/status")"; done; done; }
DIRECTIVES=()
if [[ -f $APP/jvm/compiler-directives.json && -z ${NO_DIRECTIVES:-} ]]; then
  DIRECTIVES=(-XX:+UnlockDiagnosticVMOptions "-XX:CompilerDirectivesFile=$APP/jvm/compiler-directives.json")
fi
PIDS=()
for i in $(seq 0 $((NODES - 1))); do
  QUARKUS_DATASOURCE_JDBC_URL=jdbc:postgresql://$PGHOST:$PGPORT/$PGDATABASE QUARKUS_DATASOURCE_USERNAME=$PGUSER \
  QUARKUS_DATASOURCE_PASSWORD=${PGPASSWORD:-} QUARKUS_HTTP_PORT=$((18080 + i)) DROVER_SCHEMA=$SCHEMA \
  DROVER_NODENAME=profile-node-$i DROVER_LOCKMODE=SkipLocked DROVER_THREADS=${THREADS:-8} DROVER_QUEUESIZE=1024 \
  DROVER_ACQUIREPAGESIZE=256 $JAVA -Xmx384m -XX:+UseParallelGC "${DIRECTIVES[@]}" ${JAVA_OPTS:-} -jar "$APP/quarkus-run.jar" \
    >"$OUT/node-$i.log" 2>&1 &
  PIDS+=($!)
done
trap 'kill "${PIDS[@]}" 2>/dev/null || true' EXIT
for i in $(seq 0 $((NODES - 1))); do
  until curl -sf "http://127.0.0.1:$((18080 + i))/q/health/ready" >/dev/null; do sleep 0.5; done
done
drain() {
  $PSQL -c "insert into $SCHEMA.job (type, payload, max_attempts) select 'noop', null, 3 from generate_series(1, $1)"
  while [[ $($PSQL -c "select count(*) from $SCHEMA.job") != 0 ]]; do sleep 0.2; done
}
[[ -n ${WARM:-} ]] && drain "$WARM"
sleep 10 # start-up work (its JIT, the first scrapes) settles
declare -A C0
for p in "${PIDS[@]}"; do C0[$p]=$(cpu "$p"); done
threads >"$OUT/threads0.txt"
if [[ -n ${PERF:-} ]]; then
  perf record -F 999 -g -o "$OUT/perf.data" -p "$(IFS=,; echo "${PIDS[*]}")" >"$OUT/perf.log" 2>&1 &
  PERFPID=$!
fi
T0=$(date +%s.%N)
drain "$JOBS"
T1=$(date +%s.%N)
threads >"$OUT/threads1.txt"
if [[ -n ${PERF:-} ]]; then
  kill -INT "$PERFPID"; wait "$PERFPID" || true
  for p in "${PIDS[@]}"; do "$(dirname "$JAVA")/jcmd" "$p" Compiler.perfmap >/dev/null 2>&1 || true; done
fi
for i in $(seq 0 $((NODES - 1))); do curl -s "http://127.0.0.1:$((18080 + i))/q/metrics" >"$OUT/metrics-$i.txt"; done
TOT=0
for p in "${PIDS[@]}"; do TOT=$((TOT + $(cpu "$p") - ${C0[$p]})); done
echo "$T0 $T1" >"$OUT/window.txt"
python3 "$HERE/threads.py" "$OUT/threads0.txt" "$OUT/threads1.txt" "$JOBS" >"$OUT/threads.txt"
python3 -c "
jobs, ticks, wall = $JOBS, $TOT, $T1 - $T0
print(f'$LABEL nodes=$NODES jobs={jobs} wall={wall:.1f}s jobs/s={jobs / wall:.0f}'
      f' cpu={ticks / $TCK:.2f}s cpu_us_per_job={ticks / $TCK / jobs * 1e6:.1f}')" | tee "$OUT/result.txt"
cat "$OUT/threads.txt"
