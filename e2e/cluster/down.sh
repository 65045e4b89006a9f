#!/usr/bin/env bash
# Tears the local e2e cluster down and restores the host: stops only the processes up.sh
# started (by their pid files), removes pod sandboxes and mounts, the bridge, kube-proxy's
# iptables chains and the state directories, and puts back ip_forward as it was.
#
#   e2e/cluster/down.sh            everything, after keeping the logs in e2e/target/evidence (evidence.sh)
#   KEEP_STATE=1 e2e/cluster/down.sh   stop, but keep images, certificates and the database
set -uo pipefail
cd "$(dirname "$0")"
source ./env.sh
log() { echo "[cluster-down] $*" >&2; }

stop() { # name [signal]
  local f=$E2E_STATE/pids/$1
  [[ -f $f ]] || return 0
  local pid; pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    log "stopping $1"
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null
  fi
  rm -f "$f"
}

# Evidence first, while the cluster still answers (E2E_EVIDENCE=0 skips it).
[[ ${E2E_EVIDENCE:-1} == 0 ]] || ./evidence.sh

# Workloads next, while the kubelet and containerd can still stop them cleanly.
if [[ -S $CONTAINERD_SOCK ]]; then
  for c in $(ctr --address "$CONTAINERD_SOCK" -n k8s.io tasks ls -q 2>/dev/null); do
    ctr --address "$CONTAINERD_SOCK" -n k8s.io tasks kill -s KILL "$c" >/dev/null 2>&1
  done
fi
for p in kwok kube-proxy kubelet kube-scheduler kube-controller-manager kube-apiserver etcd; do stop $p; done
sleep 1
if [[ -S $CONTAINERD_SOCK ]]; then
  for c in $(ctr --address "$CONTAINERD_SOCK" -n k8s.io containers ls -q 2>/dev/null); do
    ctr --address "$CONTAINERD_SOCK" -n k8s.io tasks delete -f "$c" >/dev/null 2>&1
    ctr --address "$CONTAINERD_SOCK" -n k8s.io containers delete "$c" >/dev/null 2>&1
  done
fi
stop containerd

if [[ -f $E2E_STATE/pg/data/postmaster.pid ]]; then
  log "stopping PostgreSQL"
  su postgres -s /bin/sh -c "$PG_BIN/pg_ctl -D '$E2E_STATE/pg/data' -m fast -w stop" >/dev/null 2>&1
fi

# Mounts left by pods (volumes, sandboxes' shm, overlay snapshots), deepest first.
for root in "$E2E_STATE" "$E2E_RUN"; do
  grep -o " $root[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
done
# Network namespaces of pod sandboxes.
for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep '^cni-'); do ip netns delete "$ns" 2>/dev/null; done

# kube-proxy's and the CNI plugin's iptables chains (KUBE-*, CNI-*), in both tables.
for table in nat filter mangle; do
  iptables-save -t $table 2>/dev/null | grep -oE '^-A (KUBE|CNI)-[^ ]+|^:(KUBE|CNI)-[^ ]+' >/dev/null || continue
  for chain in $(iptables -t $table -S 2>/dev/null | awk '$1=="-A" && $0 ~ /-j (KUBE|CNI)-/ {print $2}' | sort -u); do
    iptables -t $table -S "$chain" 2>/dev/null | grep -E -- '-j (KUBE|CNI)-' | sed 's/^-A/-D/' | while read -r rule; do
      eval "iptables -t $table $rule" 2>/dev/null
    done
  done
  for chain in $(iptables -t $table -S 2>/dev/null | awk '$1=="-N" && $2 ~ /^(KUBE|CNI)-/ {print $2}'); do
    iptables -t $table -F "$chain" 2>/dev/null
  done
  for chain in $(iptables -t $table -S 2>/dev/null | awk '$1=="-N" && $2 ~ /^(KUBE|CNI)-/ {print $2}'); do
    iptables -t $table -X "$chain" 2>/dev/null
  done
done

ip link show "$BRIDGE" >/dev/null 2>&1 && ip link delete "$BRIDGE"
for v in $(ip -o link show type veth 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
  [[ $(cat /sys/class/net/$v/master/uevent 2>/dev/null) == *"$BRIDGE"* ]] && ip link delete "$v"
done
[[ -f $E2E_STATE/ip_forward.orig ]] && cat "$E2E_STATE/ip_forward.orig" >/proc/sys/net/ipv4/ip_forward
[[ -f $E2E_STATE/bridge-nf.orig && -w /proc/sys/net/bridge/bridge-nf-call-iptables ]] &&
  cat "$E2E_STATE/bridge-nf.orig" >/proc/sys/net/bridge/bridge-nf-call-iptables

rm -rf "$E2E_RUN"
if [[ ${KEEP_STATE:-0} == 1 ]]; then
  log "stopped; state kept in $E2E_STATE"
else
  rm -rf "$E2E_STATE"
  log "down: host restored"
fi
