#!/usr/bin/env bash
# make run: Drover end to end in one command. Without KUBECONFIG it brings up the local
# cluster (e2e/cluster/up.sh; root), imports the images, installs KEDA and the operator with
# Helm, creates a database Secret and an autoscaled ExecutorCluster, runs a short in-cluster
# benchmark and prints the result and where to look. With KUBECONFIG set it uses that cluster:
# then DEMO_EXECUTOR_IMAGE, DEMO_OPERATOR_IMAGE, DEMO_DB_HOST (and DEMO_DB_PORT, DEMO_DB_NAME,
# DEMO_DB_SSLMODE, DEMO_DB_USER, DEMO_DB_PASSWORD) say what to use, and KEDA should be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
source e2e/cluster/env.sh
VERSION=0.1.0
NS=drover-demo
KUBECTL=$BIN/kubectl HELM=$BIN/helm
log() { echo "[run] $*" >&2; }
# kubectl and helm, whichever cluster is used (a no-op once built).
tools/build-binaries.sh apiserver helm
LOCAL=0
if [[ -z ${KUBECONFIG:-} ]]; then
  LOCAL=1
  e2e/cluster/up.sh
  export KUBECONFIG=$KUBECONFIG_FILE
  import_images
  e2e/keda/install.sh
  : "${DEMO_EXECUTOR_IMAGE:=localhost/drover-executor:$VERSION}" "${DEMO_OPERATOR_IMAGE:=localhost/drover-operator:$VERSION}"
  : "${DEMO_DB_HOST:=$BRIDGE_IP}" "${DEMO_DB_PORT:=$PG_PORT}" "${DEMO_DB_SSLMODE:=disable}"
  : "${DEMO_DB_USER:=drover}" "${DEMO_DB_PASSWORD:=drover-e2e}"
fi
: "${DEMO_EXECUTOR_IMAGE:?}" "${DEMO_OPERATOR_IMAGE:?}" "${DEMO_DB_HOST:?}" "${DEMO_DB_USER:?}" "${DEMO_DB_PASSWORD:?}"

log "installing the CRD and the operator (Helm), managing namespace $NS"
"$KUBECTL" apply --server-side -f crds/ >/dev/null
"$KUBECTL" create namespace "$NS" --dry-run=client -o yaml | "$KUBECTL" apply -f - >/dev/null
helm_args=(upgrade --install drover-operator charts/drover-operator --namespace drover-system --create-namespace
  --set "watchNamespaces={$NS}"
  --set "image.repository=${DEMO_OPERATOR_IMAGE%:*}" --set "image.tag=${DEMO_OPERATOR_IMAGE##*:}"
  --set "executorImage.repository=${DEMO_EXECUTOR_IMAGE%:*}" --set "executorImage.tag=${DEMO_EXECUTOR_IMAGE##*:}"
  --set logging.json=false --wait --timeout 5m)
# Locally, keep the operator off the fake (kwok) node, whose pods never really run.
((LOCAL)) && helm_args+=(--set-json "$AVOID_FAKE_NODES")
"$HELM" "${helm_args[@]}" >/dev/null

log "creating the database Secret (labelled for ExecutorClusters) and the ExecutorCluster 'demo' in namespace $NS"
"$KUBECTL" -n "$NS" create secret generic demo-db --from-literal=username="$DEMO_DB_USER" \
  --from-literal=password="$DEMO_DB_PASSWORD" --dry-run=client -o yaml \
  | "$KUBECTL" label -f - --local -o yaml drover.io/executor-secret=true | "$KUBECTL" apply -f - >/dev/null
small=""
((LOCAL)) && small="  resources: {requests: {cpu: 100m, memory: 384Mi}, limits: {memory: 768Mi}}
  jvmOptions: -XX:+UseSerialGC"
"$KUBECTL" apply -f - >/dev/null <<YAML
apiVersion: drover.io/v1alpha1
kind: ExecutorCluster
metadata: {name: demo, namespace: $NS}
spec:
  replicas: 2
  lockMode: Global
  threads: 8
  queueSize: 1024
  acquirePageSize: 256
  schema: drover_demo
  database:
    host: $DEMO_DB_HOST
    port: ${DEMO_DB_PORT:-5432}
    name: ${DEMO_DB_NAME:-jobs}
    sslMode: ${DEMO_DB_SSLMODE:-require}
    credentialsSecret: {name: demo-db}
  autoscaling: {enabled: true, minReplicas: 1, maxReplicas: 3, targetBacklogPerNode: 5000, pollingInterval: 5s, cooldownPeriod: 1m, scaleDownStabilizationWindow: 1m}
$small
YAML
"$KUBECTL" -n "$NS" wait executorcluster demo --for=condition=Ready --timeout=300s >/dev/null
"$KUBECTL" -n "$NS" get executorcluster demo

log "benchmark: 20,000 no-op jobs seeded by a Job in the cluster, drained by the executors"
KUBECTL=$KUBECTL e2e/bench/run-one.sh --cluster=demo --namespace="$NS" --kind=noop --jobs=20000 >/dev/null

if ((LOCAL)); then
  # A Prometheus for the local cluster, scraping as the chart's PodMonitors do, with the chart's
  # alert rules (e2e/prometheus/prometheus.yml); started on request below.
  prom=$E2E_STATE/prometheus
  mkdir -p "$prom"
  "$HELM" template drover-operator charts/drover-operator --kube-version 1.34.2 --set metrics.prometheusRule.enabled=true \
    --show-only templates/prometheusrule.yaml | sed -n '/^spec:/,$p' | tail -n +2 | sed 's/^  //' >"$prom/rules.yaml"
  sed -e "s|@RULES@|$prom/rules.yaml|" -e "s|@KUBECONFIG@|$KUBECONFIG|g" -e "s|@EXECUTOR_NAMESPACE@|$NS|" \
    -e "s|@OPERATOR_NAMESPACE@|drover-system|" e2e/prometheus/prometheus.yml >"$prom/prometheus.yml"
fi

cat <<TXT

Drover is running. Look around:
  export KUBECONFIG=$KUBECONFIG
  kubectl get executorclusters -A                 # nodes, lock mode, backlog, jobs/s, lag, bottleneck, Ready
  kubectl -n $NS describe executorcluster demo    # conditions: Ready, Progressing, Degraded, Autoscaling
  kubectl -n $NS get pods,statefulset,scaledobject,hpa
  kubectl -n $NS get configmaps -l app.kubernetes.io/name=drover-bench   # benchmark results (result.json)
  kubectl -n $NS port-forward svc/demo 8080 & curl -s localhost:8080/q/metrics | grep ^drover_
  e2e/bench/run-one.sh --cluster=demo --namespace=$NS --kind=sleep:100 --jobs=2000   # another run
TXT
if ((LOCAL)); then cat <<TXT
Metrics: every executor serves /q/metrics on port 8080 (docs/metrics.md). Prometheus, scraping
them with the chart's alert rules (docs/runbook.md):
  $BIN/prometheus --config.file=$prom/prometheus.yml --storage.tsdb.path=$prom/data --web.listen-address=127.0.0.1:9090 &
  then http://127.0.0.1:9090/alerts and /graph?g0.expr=drover_due_backlog; Grafana: import
  charts/drover-operator/dashboards/drover-fleet.json with that Prometheus as its data source.
TXT
else cat <<TXT
Metrics: with the Prometheus Operator, the chart's PodMonitors, PrometheusRule and dashboard
(metrics.podMonitor, metrics.prometheusRule, metrics.grafanaDashboard; docs/metrics.md).
TXT
fi
((LOCAL)) && echo "  make down                                       # remove the local cluster, restore the host"
