#!/usr/bin/env bash
# The in-cluster benchmark matrix, like the published Flowable experiments: for each
# configuration, the ExecutorCluster "bench" is set to it, becomes ready, and run-one.sh times
# the drain of a fresh batch. Results (one JSON per run) go to --results=DIR; the page and chart
# to --out (default docs/benchmarks/cluster.{md,png}).
#
#   e2e/bench/matrix.sh [--quick | --engines] [--namespace=drover-bench] [--jobs=N (every run; default: sized per run)]
#                       [--results=DIR] [--out=PREFIX]
#                       [--scenario="[ENGINE] KIND LOCKMODE PAGE THREADS NODES"]...   (only these, e.g. "noop Global 1 8 2")
#
# --engines: the seed experiments with Flowable's own async executor beside Drover's engine, on
# the same database: two ExecutorClusters, "bench" (engine Drover, schema drover_bench) and
# "bench-flowable" (engine Flowable, schema flowable_bench); the one not measured is scaled to 0
# during each run. Global and Optimistic x pages 1, 256 and 512 x 1 and 2 nodes, then 100 ms
# jobs and due timers; one page and chart (default docs/benchmarks/engines.{md,png}).
#
# Needs: the operator installed, and in the namespace a Secret "bench-db" (username, password)
# for the database given by BENCH_DB_HOST, BENCH_DB_PORT (5432), BENCH_DB_NAME (jobs),
# BENCH_DB_SSLMODE (require). BENCH_EXTRA_SPEC adds YAML lines to every spec (e.g. resources
# for a small test cluster). The full matrix is 243 configurations: meant for a real cluster (EKS,
# c5 nodes, RDS; see docs/benchmarks/README.md); --quick is 13 that fit a laptop-sized cluster.
# Both then run a sizing drain and three timer rounds of two drains (below); a drain under 15 s
# is measured again with more jobs.
# BENCH_SAMPLE=1 (with PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE for the same database, as
# this host reaches it) samples the database every second through the whole matrix
# (sample-db.sh, Drover's job table) and keeps every node's log of every run, under
# RESULTS/samples and RESULTS/logs.
set -euo pipefail
shopt -s inherit_errexit   # a failed run inside $(drain ...) ends the matrix, as it did before drain()
cd "$(dirname "$0")/../.."
KUBECTL=${KUBECTL:-kubectl}
NS=drover-bench QUICK=0 ENGINES=0 JOBS="" RESULTS="" OUT=""
only=()
for arg in "$@"; do
  case $arg in
    --quick) QUICK=1 ;; --engines) ENGINES=1 ;; --namespace=*) NS=${arg#*=} ;; --jobs=*) JOBS=${arg#*=} ;;
    --results=*) RESULTS=${arg#*=} ;; --out=*) OUT=${arg#*=} ;; --scenario=*) only+=("${arg#*=}") ;;
    *) echo "unknown option $arg" >&2; exit 2 ;;
  esac
done
: "${BENCH_DB_HOST:?set BENCH_DB_HOST (the database as pods reach it)}"
RESULTS=${RESULTS:-target/bench-cluster/$(date +%Y%m%d-%H%M%S)}
OUT=${OUT:-$( ((ENGINES)) && echo docs/benchmarks/engines || echo docs/benchmarks/cluster)}
mkdir -p "$RESULTS"

# Jobs per run unless --jobs says: sized for drains of 15-60 s on the local cluster (2 shared
# cores), so that a young JVM's compilation (most of its CPU in the first seconds) and the first
# second's scrape do not decide the figure: 5,000-job drains at page 256 lasted 0.5 s and put
# timers at 0.19 x no-op. A Drover run that still drains in under 15 s is measured again with
# more jobs (below), so every drain on the page is at least 15 s; the sizes start large enough
# that this is rare, because a larger backlog drains slower here (960,000 jobs at 29,586 jobs/s
# against 600,000 at 47,673, Global page 256 on one node in one run) and the pairs the targets
# compare should drain as many jobs. Flowable's executor runs each
# job in a transaction of its own that also ends the process instance and writes its history,
# about 100 times Drover's cost per job on this machine, so its runs get fewer jobs for drains of
# the same length; jobs/s compare. The full matrix starts from 100,000 (Flowable's size).
quick_jobs() { # engine kind page
  if [[ $1 == Flowable ]]; then
    case $2 in sleep:*) echo 1600 ;; *) if (($3 == 1)); then echo 1000; else echo 5000; fi ;; esac
  else
    case $2 in sleep:*) echo 3000 ;; *) if (($3 == 1)); then echo 30000; else echo 1000000; fi ;; esac
  fi
}
scenarios=()   # engine kind lockMode page threads nodes
if ((${#only[@]})); then
  for s in "${only[@]}"; do
    case $s in Drover\ *|Flowable\ *) scenarios+=("$s") ;; *) scenarios+=("Drover $s") ;; esac
  done
elif ((ENGINES)); then
  for engine in Drover Flowable; do
    for mode in Global Optimistic; do for page in 1 256 512; do for nodes in 1 2; do
      scenarios+=("$engine noop $mode $page 8 $nodes"); done; done; done
    scenarios+=("$engine sleep:100 Global 256 8 2" "$engine timer Global 256 8 2")
  done
elif ((QUICK)); then
  for mode in Global Optimistic SkipLocked; do for page in 1 256; do for nodes in 1 2; do
    scenarios+=("Drover noop $mode $page 8 $nodes"); done; done; done
  scenarios+=("Drover sleep:100 SkipLocked 256 8 2")   # and the timer rounds, after the matrix
else
  for kind in noop sleep:100 timer; do for mode in Global Optimistic SkipLocked; do for page in 1 256 512; do
    for threads in 8 64 128; do for nodes in 1 2 4; do scenarios+=("Drover $kind $mode $page $threads $nodes"); done; done
  done; done; done
fi

cluster_of() { [[ $1 == Flowable ]] && echo bench-flowable || echo bench; }
schema_of() { [[ $1 == Flowable ]] && echo flowable_bench || echo drover_bench; }
executor_pods() { # cluster
  "$KUBECTL" -n "$NS" get pods -l "app.kubernetes.io/instance=$1,app.kubernetes.io/name=drover-executor" --no-headers 2>/dev/null | wc -l
}

if [[ ${BENCH_SAMPLE:-0} == 1 ]]; then
  e2e/bench/sample-db.sh "$RESULTS/samples" drover_bench &
  trap 'touch "$RESULTS/samples/stop"' EXIT
fi
# Sets the ExecutorCluster to a configuration and waits until it runs it: engine kind mode page threads nodes.
configure() {
  local engine=$1 mode=$3 page=$4 threads=$5 nodes=$6 cluster other queue gen
  cluster=$(cluster_of "$engine")
  # The other engine's fleet idles at 0 replicas, so each run has the machine to itself.
  for other in bench bench-flowable; do
    if [[ $other != "$cluster" ]] && "$KUBECTL" -n "$NS" get executorcluster "$other" >/dev/null 2>&1; then
      "$KUBECTL" -n "$NS" patch executorcluster "$other" --type=merge -p '{"spec":{"replicas":0}}' >/dev/null
      until [[ $(executor_pods "$other") == 0 ]]; do sleep 1; done
    fi
  done
  queue=$((page > 1024 ? page : 1024))
  "$KUBECTL" apply -f - >/dev/null <<YAML
apiVersion: drover.io/v1alpha1
kind: ExecutorCluster
metadata: {name: $cluster, namespace: $NS}
spec:
  engine: $engine
  replicas: $nodes
  lockMode: $mode
  threads: $threads
  queueSize: $queue
  acquirePageSize: $page
  schema: $(schema_of "$engine")
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
  gen=$("$KUBECTL" -n "$NS" get executorcluster "$cluster" -o jsonpath='{.metadata.generation}')
  "$KUBECTL" -n "$NS" wait executorcluster "$cluster" --for=jsonpath='{.status.observedGeneration}'="$gen" --timeout=120s >/dev/null
  "$KUBECTL" -n "$NS" wait executorcluster "$cluster" --for=condition=Progressing=False --timeout=600s >/dev/null
  "$KUBECTL" -n "$NS" wait executorcluster "$cluster" --for=condition=Ready --timeout=600s >/dev/null
  # Terminated pods of the old revision must be gone before run-one.sh counts the nodes.
  until [[ $(executor_pods "$cluster") == "$nodes" ]]; do sleep 1; done
}

# One drain by run-one.sh: cluster kind jobs label FILE. Writes the result JSON to FILE and
# prints the drain's seconds.
drain() {
  local cluster=$1 kind=$2 jobs=$3 label=$4 file=$5 scratch pod
  scratch=$RESULTS/.run; rm -rf "$scratch"
  [[ ${BENCH_SAMPLE:-0} == 1 ]] && echo "$label" >"$RESULTS/samples/current"
  e2e/bench/run-one.sh --cluster="$cluster" --namespace="$NS" --kind="$kind" --jobs="$jobs" --timeout=900s --out="$scratch" >/dev/null
  if [[ ${BENCH_SAMPLE:-0} == 1 ]]; then
    echo "-" >"$RESULTS/samples/current"
    mkdir -p "$RESULTS/logs"
    for pod in $("$KUBECTL" -n "$NS" get pods -l "app.kubernetes.io/instance=$cluster,app.kubernetes.io/name=drover-executor" -o name); do
      "$KUBECTL" -n "$NS" logs "$pod" >"$RESULTS/logs/$label-${pod#pod/}.log" 2>&1 || true
    done
  fi
  mkdir -p "$(dirname "$file")"
  mv "$scratch"/*.json "$file"
  sed -n 's/^ *"seconds" *: *\([0-9.]*\),*$/\1/p' "$file" | head -1
}

# A drain shorter than this measures a young JVM's compilation and the first scrape more than
# the configuration (ClusterReport.MEANINGFUL_SECONDS): such a run is measured again with the
# jobs scaled to about RESIZE_TO seconds, on the same nodes (the short run was their warm-up).
MEANINGFUL=15 RESIZE_TO=20 MAX_JOBS=4000000
resize() { [[ -z $JOBS ]] && ((!ENGINES)); }
scaled() { # jobs seconds target: the jobs for a drain of about target seconds, in 10,000s, at most MAX_JOBS
  awk -v j="$1" -v s="$2" -v t="$3" -v cap=$MAX_JOBS \
    'BEGIN { n = j * t / (s > 0.1 ? s : 0.1); n = int((n + 9999) / 10000) * 10000; print (n > cap ? cap : n) }'
}
declare -A sized=()   # "kind mode page threads nodes" -> the jobs of the run that counted
run=0
for s in "${scenarios[@]}"; do
  read -r engine kind mode page threads nodes <<<"$s"
  cluster=$(cluster_of "$engine")
  run=$((run + 1))
  echo "[matrix] $run/${#scenarios[@]}: $engine $kind lockMode=$mode acquirePageSize=$page threads=$threads nodes=$nodes" >&2
  configure "$engine" "$kind" "$mode" "$page" "$threads" "$nodes"
  jobs=${JOBS:-$(if ((QUICK || ENGINES || ${#only[@]})); then quick_jobs "$engine" "$kind" "$page"; else echo 100000; fi)}
  label="$run-$engine-$kind-$mode-p$page-t$threads-n$nodes"
  out=$RESULTS; ((ENGINES)) && out=$RESULTS/$engine
  secs=$(drain "$cluster" "$kind" "$jobs" "$label" "$out/$label.json")
  if resize && [[ $kind != sleep:* ]] && awk -v s="$secs" -v m=$MEANINGFUL 'BEGIN { exit !(s < m) }'; then
    jobs=$(scaled "$jobs" "$secs" $RESIZE_TO)
    echo "[matrix] $label drained in $secs s (< $MEANINGFUL s): again with $jobs jobs" >&2
    mkdir -p "$RESULTS/short" && mv "$out/$label.json" "$RESULTS/short/$label.json"   # kept, not reported
    secs=$(drain "$cluster" "$kind" "$jobs" "$label-resized" "$out/$label.json")
  fi
  sized["$kind $mode $page $threads $nodes"]=$jobs
done

# Due timers against no-op jobs (the quick and the full matrix): like make bench, rounds of one
# run of each on the same nodes, back to back, the order swapped every round; ClusterReport
# judges the median of the rounds' ratios. A single pair mostly measures the moment (0.37 and
# 1.28 on two runs of one engine). Nodes that have drained before run faster than the matrix's fresh ones (58,009 against
# 37,469 jobs/s in one run), so a first drain on these nodes, not reported, sizes the rounds for
# about ROUNDS_TO seconds each.
ROUNDS_TO=30
if ((!ENGINES)) && ((${#only[@]} == 0)); then
  read -r mode page threads nodes <<<"SkipLocked 256 8 2"
  configure Drover noop "$mode" "$page" "$threads" "$nodes"
  jobs=${sized["noop $mode $page $threads $nodes"]}
  echo "[matrix] timer rounds: a first drain of $jobs no-op jobs sizes them" >&2
  secs=$(drain bench noop "$jobs" "rounds-sizing" "$RESULTS/short/rounds-sizing.json")
  [[ -n $JOBS ]] || jobs=$(scaled "$jobs" "$secs" $ROUNDS_TO)
  for round in 1 2 3; do
    if ((round % 2 == 0)); then order="timer noop"; else order="noop timer"; fi
    for kind in $order; do
      echo "[matrix] timer round $round: $kind x $jobs, lockMode=$mode acquirePageSize=$page nodes=$nodes" >&2
      drain bench "$kind" "$jobs" "round$round-Drover-$kind-$mode-p$page-t$threads-n$nodes" \
        "$RESULTS/timer-rounds/round-$round-$kind.json" >/dev/null
    done
  done
fi

JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
# The nodes that run pods (not kwok's simulated ones), each by its instance-type label and its
# real CPU capacity: a local cluster labels a 2-core machine c5.2xlarge for the placement rules.
CLUSTER_TEXT="$("$KUBECTL" get nodes -l 'type!=kwok' -o jsonpath='{range .items[*]}{.metadata.labels.node\.kubernetes\.io/instance-type}{" node with "}{.status.capacity.cpu}{" cores; "}{end}' | sed 's/; $//'), $("$KUBECTL" version -o json | sed -n 's/.*"gitVersion": "\(v[^"]*\)".*/\1/p' | tail -1)"
if ((ENGINES)); then
  "$JAVA" -cp "bench/target/classes:$(cat bench/target/classpath.txt)" io.drover.bench.BenchTool engines-report --results="$RESULTS" \
    --out="$OUT" --command="e2e/bench/matrix.sh $*" --cluster="$CLUSTER_TEXT"
else
  "$JAVA" -cp "bench/target/classes:$(cat bench/target/classpath.txt)" io.drover.bench.BenchTool report --results="$RESULTS" --out="$OUT" \
    --title="In-cluster benchmark$( ((QUICK)) && echo ' (quick)')" --command="e2e/bench/matrix.sh $*" --cluster="$CLUSTER_TEXT"
fi
