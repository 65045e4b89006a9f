#!/usr/bin/env bash
# make bench-cluster: the quick in-cluster matrix on the local cluster (brought up if needed),
# against the PostgreSQL that runs beside it. Extra arguments go to matrix.sh (e.g. --jobs=N);
# with --engines (make bench-engines), Flowable's executor beside Drover's instead of --quick.
set -euo pipefail
cd "$(dirname "$0")/../.."
source e2e/cluster/env.sh
tools/build-binaries.sh apiserver helm
e2e/cluster/up.sh
export KUBECONFIG=$KUBECONFIG_FILE KUBECTL=$BIN/kubectl
import_images
"$KUBECTL" apply --server-side -f crds/ >/dev/null
"$KUBECTL" create namespace drover-bench --dry-run=client -o yaml | "$KUBECTL" apply -f - >/dev/null
"$BIN/helm" upgrade --install drover-operator charts/drover-operator --namespace drover-system --create-namespace \
  --set "watchNamespaces={drover-bench}" --set logging.json=false --wait --timeout 5m \
  --set-json "$AVOID_FAKE_NODES" >/dev/null
"$KUBECTL" -n drover-bench create secret generic bench-db --from-literal=username=drover --from-literal=password=drover-e2e \
  --dry-run=client -o yaml | "$KUBECTL" label -f - --local -o yaml drover.io/executor-secret=true \
  | "$KUBECTL" apply -f - >/dev/null
export BENCH_DB_HOST=$BRIDGE_IP BENCH_DB_PORT=$PG_PORT BENCH_DB_NAME=jobs BENCH_DB_SSLMODE=disable
# The database sampled every second and the nodes' logs kept (matrix.sh): two psql calls a
# second, small beside the runs, and what a slow drain is explained with afterwards.
export BENCH_SAMPLE=${BENCH_SAMPLE:-1} PGHOST=$BRIDGE_IP PGPORT=$PG_PORT PGUSER=drover PGPASSWORD=drover-e2e PGDATABASE=jobs
# Two cores for everything: small executors, and the one real node holds them all.
export BENCH_EXTRA_SPEC="  resources: {requests: {cpu: 100m, memory: 384Mi}, limits: {memory: 768Mi}}
  jvmOptions: -XX:+UseSerialGC"
mode=--quick
for arg in "$@"; do [[ $arg == --engines ]] && mode=""; done
e2e/bench/matrix.sh $mode --namespace=drover-bench "$@"
