#!/usr/bin/env bash
# The in-cluster benchmark matrix, like the published Flowable experiments: for each
# configuration, the ExecutorCluster "bench" is set to it, becomes ready, and run-one.sh times
# the drain of a fresh batch. Results (one JSON per run) go to --results=DIR; the page and chart
# to --out (default docs/benchmarks/cluster.{md,png}).
#
#   e2e/bench/matrix.sh [--quick] [--namespace=drover-bench] [--jobs=N (every run; default: sized per run)] [--results=DIR] [--out=PREFIX]
#                       [--scenario="KIND LOCKMODE PAGE THREADS NODES"]...   (only these, e.g. "noop Global 1 8 2")
#
# Needs: the operator installed, and in the namespace a Secret "bench-db" (username, password)
# for the database given by BENCH_DB_HOST, BENCH_DB_PORT (5432), BENCH_DB_NAME (jobs),
# BENCH_DB_SSLMODE (require). BENCH_EXTRA_SPEC adds YAML lines to every spec (e.g. resources
# for a small test cluster). The full matrix is 243 runs: meant for a real cluster (EKS, c5
# nodes, RDS; see docs/benchmarks/README.md); --quick is 14 runs that fit a laptop-sized cluster.
# BENCH_SAMPLE=1 (with PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE for the same database, as
# this host reaches it) samples the database every second through the whole matrix
# (sample-db.sh) and keeps every node's log of every run, under RESULTS/samples and RESULTS/logs.
set -euo pipefail
cd "$(dirname "$0")/../.."
KUBECTL=${KUBECTL:-kubectl}
NS=drover-bench QUICK=0 JOBS="" RESULTS="" OUT=docs/benchmarks/cluster
only=()
for arg in "$@"; do
  case $arg in
    --quick) QUICK=1 ;; --namespace=*) NS=${arg#*=} ;; --jobs=*) JOBS=${arg#*=} ;;
    --results=*) RESULTS=${arg#*=} ;; --out=*) OUT=${arg#*=} ;; --scenario=*) only+=("${arg#*=}") ;;
    *) echo "unknown option $arg" >&2; exit 2 ;;
  esac
done
: "${BENCH_DB_HOST:?set BENCH_DB_HOST (the database as pods reach it)}"
RESULTS=${RESULTS:-target/bench-cluster/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$RESULTS"

# Jobs per run unless --jobs says: sized for drains of 10-60 s on the local cluster (2 shared
# cores), so that a young JVM's compilation (most of its CPU in the first seconds) and the first
# second's scrape do not decide the figure: 5,000-job drains at page 256 lasted 0.5 s and put
# timers at 0.19 x no-op. The page names every drain under 15 s. The full matrix keeps 100,000
# (Flowable's size).
quick_jobs() { # kind page
  case $1 in sleep:*) echo 3000 ;; *) if (($2 == 1)); then echo 15000; else echo 400000; fi ;; esac
}
scenarios=()   # kind lockMode page threads nodes
if ((${#only[@]})); then
  scenarios=("${only[@]}")
elif ((QUICK)); then
  for mode in Global Optimistic SkipLocked; do for page in 1 256; do for nodes in 1 2; do
    scenarios+=("noop $mode $page 8 $nodes"); done; done; done
  scenarios+=("sleep:100 SkipLocked 256 8 2" "timer SkipLocked 256 8 2")
else
  for kind in noop sleep:100 timer; do for mode in Global Optimistic SkipLocked; do for page in 1 256 512; do
    for threads in 8 64 128; do for nodes in 1 2 4; do scenarios+=("$kind $mode $page $threads $nodes"); done; done
  done; done; done
fi

if [[ ${BENCH_SAMPLE:-0} == 1 ]]; then
  e2e/bench/sample-db.sh "$RESULTS/samples" drover_bench &
  trap 'touch "$RESULTS/samples/stop"' EXIT
fi
run=0
for s in "${scenarios[@]}"; do
  read -r kind mode page threads nodes <<<"$s"
  run=$((run + 1))
  echo "[matrix] $run/${#scenarios[@]}: $kind lockMode=$mode acquirePageSize=$page threads=$threads nodes=$nodes" >&2
  queue=$((page > 1024 ? page : 1024))
  "$KUBECTL" apply -f - >/dev/null <<YAML
apiVersion: drover.io/v1alpha1
kind: ExecutorCluster
metadata: {name: bench, namespace: $NS}
spec:
  replicas: $nodes
  lockMode: $mode
  threads: $threads
  queueSize: $queue
  acquirePageSize: $page
  schema: drover_bench
  database:
    host: $BENCH_DB_HOST
    port: ${BENCH_DB_PORT:-5432}
    name: ${BENCH_DB_NAME:-jobs}
    sslMode: ${BENCH_DB_SSLMODE:-require}
    credentialsSecret: {name: bench-db}
${BENCH_EXTRA_SPEC:-}
YAML
  # A changed spec rolls the pods: wait until the operator has seen this generation, the roll
  # is over (Progressing False) and every node is ready, so the run measures this configuration.
  gen=$("$KUBECTL" -n "$NS" get executorcluster bench -o jsonpath='{.metadata.generation}')
  "$KUBECTL" -n "$NS" wait executorcluster bench --for=jsonpath='{.status.observedGeneration}'="$gen" --timeout=120s >/dev/null
  "$KUBECTL" -n "$NS" wait executorcluster bench --for=condition=Progressing=False --timeout=600s >/dev/null
  "$KUBECTL" -n "$NS" wait executorcluster bench --for=condition=Ready --timeout=600s >/dev/null
  # Terminated pods of the old revision must be gone before run-one.sh counts the nodes.
  until [[ $("$KUBECTL" -n "$NS" get pods -l app.kubernetes.io/instance=bench,app.kubernetes.io/name=drover-executor \
    --no-headers 2>/dev/null | wc -l) == "$nodes" ]]; do sleep 1; done
  jobs=${JOBS:-$(if ((QUICK || ${#only[@]})); then quick_jobs "$kind" "$page"; else echo 100000; fi)}
  label="$run-$kind-$mode-p$page-t$threads-n$nodes"
  [[ ${BENCH_SAMPLE:-0} == 1 ]] && echo "$label" >"$RESULTS/samples/current"
  e2e/bench/run-one.sh --cluster=bench --namespace="$NS" --kind="$kind" --jobs="$jobs" --timeout=900s --out="$RESULTS" >/dev/null
  if [[ ${BENCH_SAMPLE:-0} == 1 ]]; then
    echo "-" >"$RESULTS/samples/current"
    mkdir -p "$RESULTS/logs"
    for pod in $("$KUBECTL" -n "$NS" get pods -l app.kubernetes.io/instance=bench,app.kubernetes.io/name=drover-executor -o name); do
      "$KUBECTL" -n "$NS" logs "$pod" >"$RESULTS/logs/$label-${pod#pod/}.log" 2>&1 || true
    done
  fi
done

JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
"$JAVA" -cp "bench/target/classes:$(cat bench/target/classpath.txt)" io.drover.bench.BenchTool report --results="$RESULTS" --out="$OUT" \
  --title="In-cluster benchmark$( ((QUICK)) && echo ' (quick)')" --command="e2e/bench/matrix.sh $*" \
  --cluster="$("$KUBECTL" get nodes -o jsonpath='{range .items[*]}{.metadata.labels.node\.kubernetes\.io/instance-type}{" "}{end}' | xargs) nodes, $("$KUBECTL" version -o json | sed -n 's/.*"gitVersion": "\(v[^"]*\)".*/\1/p' | tail -1)"
