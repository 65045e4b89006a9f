#!/usr/bin/env bash
# Keeps what a failed run needs for its diagnosis, before down.sh deletes the cluster's state:
# the components' logs (etcd, kube-apiserver, kubelet, containerd, ...), PostgreSQL's log,
# `kubectl get -A -o wide` of everything, events, the ExecutorClusters with their status, and
# every pod's logs (the previous container's too, for pods that restarted). As kind's and
# CloudNativePG's CI do, so a red CI run leaves something to read after `make down`.
#
#   e2e/cluster/evidence.sh [dir]   (default: e2e/target/evidence/<UTC time>; the 5 newest kept)
set -uo pipefail
cd "$(dirname "$0")"
source ./env.sh
root=$(cd ../.. && pwd)/e2e/target/evidence
dir=${1:-$root/$(date -u +%Y%m%dT%H%M%SZ)}
[[ -d $E2E_STATE ]] || exit 0
mkdir -p "$dir/components" "$dir/pods"
cp "$E2E_STATE"/logs/*.log "$dir/components/" 2>/dev/null
cp "$E2E_STATE/pg/postgres.log" "$dir/components/postgresql.log" 2>/dev/null

k() { "$BIN/kubectl" --kubeconfig "$KUBECONFIG_FILE" --request-timeout=15s "$@"; }
if [[ -x $BIN/kubectl && -f $KUBECONFIG_FILE ]] && k get --raw /readyz >/dev/null 2>&1; then
  k get all,configmaps,secrets,pvc,networkpolicies,poddisruptionbudgets,leases -A -o wide >"$dir/get-all.txt" 2>&1
  k get nodes -o wide >"$dir/nodes.txt" 2>&1
  k describe nodes >>"$dir/nodes.txt" 2>&1
  k get events -A --sort-by=.lastTimestamp >"$dir/events.txt" 2>&1
  k get executorclusters -A -o yaml >"$dir/executorclusters.yaml" 2>&1
  k get scaledobjects -A -o yaml >"$dir/scaledobjects.yaml" 2>&1
  k get pods -A -o jsonpath='{range .items[*]}{.metadata.namespace} {.metadata.name} {.status.containerStatuses[*].restartCount}{"\n"}{end}' 2>/dev/null |
    while read -r ns pod restarts; do
      [[ -n $pod ]] || continue
      k logs -n "$ns" "$pod" --all-containers --prefix --timestamps >"$dir/pods/$ns.$pod.log" 2>&1
      if [[ ${restarts:-0} =~ [1-9] ]]; then
        k logs -n "$ns" "$pod" --all-containers --prefix --timestamps --previous >"$dir/pods/$ns.$pod.previous.log" 2>&1
      fi
    done
else
  echo "the kube-apiserver did not answer: only the components' logs were kept" >"$dir/README.txt"
fi
# The newest five runs are enough; each is a few MB.
ls -1d "$root"/*/ 2>/dev/null | sort | head -n -5 | xargs -r rm -rf
echo "[cluster-evidence] kept in $dir" >&2
