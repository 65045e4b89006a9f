#!/usr/bin/env bash
# make e2e: the end-to-end suite on a real Kubernetes.
#
# Without KUBECONFIG: brings up the local cluster (e2e/cluster/up.sh), imports the locally
# built images into its containerd, and points the suite at the PostgreSQL that up.sh runs
# outside the cluster. With KUBECONFIG set: uses that cluster (kind, EKS, ...) as is; then say
# where the images and the database are, and have KEDA installed (see e2e/README.md):
#   E2E_EXECUTOR_IMAGE, E2E_OPERATOR_IMAGE   images the cluster can pull
#   E2E_DB_HOST, E2E_DB_PORT                 the database as pods reach it
#   E2E_DB_JDBC_URL, E2E_DB_USER, E2E_DB_PASSWORD   the same database as this machine reaches it
#   E2E_RECEIVER_HOST                        an address of this machine that pods can reach
#   E2E_CHAOS_IMAGE                          the executor image with the chaos handler (make e2e-image)
#   E2E_FLOWABLE_IMAGE                       the Flowable executor with examples/flowable-callback (make e2e-image)
#   E2E_DB_STOP, E2E_DB_START                shell commands stopping and starting the database
#                                            (without them the database-outage scenario is skipped)
set -euo pipefail
cd "$(dirname "$0")/.."
source e2e/cluster/env.sh
VERSION=0.1.0
# The suite drives the cluster with kubectl and helm (a no-op once built).
tools/build-binaries.sh apiserver helm

if [[ -z ${KUBECONFIG:-} ]]; then
  e2e/cluster/up.sh
  export KUBECONFIG=$KUBECONFIG_FILE
  import_images
  e2e/keda/install.sh
  : "${E2E_EXECUTOR_IMAGE:=localhost/drover-executor:$VERSION}"
  : "${E2E_OPERATOR_IMAGE:=localhost/drover-operator:$VERSION}"
  : "${E2E_DB_HOST:=$BRIDGE_IP}" "${E2E_DB_PORT:=$PG_PORT}"
  : "${E2E_DB_JDBC_URL:=jdbc:postgresql://127.0.0.1:$PG_PORT/jobs}"
  : "${E2E_DB_USER:=drover}" "${E2E_DB_PASSWORD:=drover-e2e}"
  : "${E2E_RECEIVER_HOST:=$BRIDGE_IP}"
  : "${E2E_CONTAINERD_SOCK:=$CONTAINERD_SOCK}"
  : "${E2E_FAKE_NODE:=$FAKE_NODE_NAME}"
  : "${E2E_OPERATOR_SET_JSON:=$AVOID_FAKE_NODES}"
  : "${E2E_CHAOS_IMAGE:=localhost/drover-executor-e2e:$VERSION}"
  : "${E2E_FLOWABLE_IMAGE:=localhost/flowable-executor-e2e:$VERSION}"
  : "${E2E_DB_STOP:=su postgres -s /bin/sh -c '$PG_BIN/pg_ctl -D $E2E_STATE/pg/data -m fast -w stop'}"
  : "${E2E_DB_START:=su postgres -s /bin/sh -c '$PG_BIN/pg_ctl -D $E2E_STATE/pg/data -l $E2E_STATE/pg/postgres.log -w start'}"
fi
for v in E2E_EXECUTOR_IMAGE E2E_OPERATOR_IMAGE E2E_CHAOS_IMAGE E2E_FLOWABLE_IMAGE E2E_DB_HOST E2E_DB_PORT E2E_DB_JDBC_URL E2E_DB_USER E2E_DB_PASSWORD E2E_RECEIVER_HOST; do
  [[ -n ${!v:-} ]] || { echo "with KUBECONFIG set, $v must be set too (e2e/README.md)" >&2; exit 2; }
done
export E2E_EXECUTOR_IMAGE E2E_OPERATOR_IMAGE E2E_CHAOS_IMAGE E2E_FLOWABLE_IMAGE E2E_DB_STOP="${E2E_DB_STOP:-}" E2E_DB_START="${E2E_DB_START:-}" E2E_DB_HOST E2E_DB_PORT E2E_DB_JDBC_URL E2E_DB_USER E2E_DB_PASSWORD \
  E2E_RECEIVER_HOST E2E_CONTAINERD_SOCK="${E2E_CONTAINERD_SOCK:-}" E2E_FAKE_NODE="${E2E_FAKE_NODE:-}" \
  E2E_OPERATOR_SET_JSON="${E2E_OPERATOR_SET_JSON:-}" \
  E2E_BIN="$BIN" E2E_REPO="$PWD"
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64} ./mvnw -B --no-transfer-progress -pl e2e -am verify -Pe2e "$@"
