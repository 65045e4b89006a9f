# Shared settings of the local e2e cluster (sourced by up.sh, down.sh and the Makefile).
# Everything the cluster creates on the host lives under $E2E_STATE (files) and $E2E_RUN
# (sockets, mounts), or is named drover-e2e / cni-drover (network), so down.sh can undo it all.
E2E_STATE=${E2E_STATE:-/var/lib/drover-e2e}
E2E_RUN=${E2E_RUN:-/run/drover-e2e}
DROVER_CACHE=${DROVER_CACHE:-$HOME/.cache/drover}
BIN=$DROVER_CACHE/bin
NODE_NAME=${NODE_NAME:-drover-e2e-node}
# The real node is labelled as what it stands in for: a c5.2xlarge.
NODE_INSTANCE_TYPE=c5.2xlarge
# A fake (kwok) node of another class proves that executors stay on c5 nodes.
FAKE_NODE_NAME=drover-e2e-m5
FAKE_NODE_INSTANCE_TYPE=m5.2xlarge
POD_CIDR=10.88.0.0/16
BRIDGE=cni-drover
BRIDGE_IP=10.88.0.1
SERVICE_CIDR=10.96.0.0/16
API_SERVICE_IP=10.96.0.1
API_PORT=6443
ETCD_PORT=2479
PG_PORT=5433
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
CONTAINERD_SOCK=$E2E_RUN/containerd/containerd.sock
KUBECONFIG_FILE=$E2E_STATE/admin.kubeconfig
PAUSE_IMAGE=localhost/drover-pause:1
# Helm --set-json value keeping a pod off the kwok fake node (its pods never really run).
AVOID_FAKE_NODES='affinity={"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"type","operator":"NotIn","values":["kwok"]}]}]}}}'

# Imports the locally built images (make images; make e2e-image if built) into the local
# cluster's containerd.
import_images() {
  local archive
  for archive in executor-image/target/image/drover-executor.oci.tar operator/target/image/drover-operator.oci.tar \
    executor-image/target/image/drover-executor-e2e.oci.tar flowable-executor/target/image/flowable-executor.oci.tar \
    flowable-executor/target/image/flowable-executor-e2e.oci.tar; do
    [[ -f $archive ]] || continue
    echo "[e2e] importing $archive into the cluster's containerd" >&2
    ctr --address "$CONTAINERD_SOCK" -n k8s.io images import "$archive" >/dev/null
  done
}
