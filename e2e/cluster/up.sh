#!/usr/bin/env bash
# Brings up a real single-node Kubernetes 1.34 on this machine, like Kubernetes'
# hack/local-up-cluster.sh: etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
# kubelet and kube-proxy as local processes on containerd + runc + CNI bridge, plus a kwok
# fake node of another instance type, and a PostgreSQL outside the cluster (the RDS stand-in)
# that pods reach on the bridge IP. Idempotent: running components are left alone.
#
#   e2e/cluster/up.sh          then: export KUBECONFIG=/var/lib/drover-e2e/admin.kubeconfig
#   e2e/cluster/down.sh        undoes everything up.sh did on the host
set -euo pipefail
cd "$(dirname "$0")"
source ./env.sh
log() { echo "[cluster-up] $*" >&2; }

[[ $(id -u) == 0 ]] || { echo "the local cluster needs root (containerd, iptables, mounts)" >&2; exit 1; }
mkdir -p "$E2E_STATE"/{pki,logs,pids,etcd,kubelet,cni/net.d,pg} "$E2E_RUN"

packages() {
  local missing=()
  for c in containerd runc ctr iptables conntrack openssl; do command -v $c >/dev/null || missing+=($c); done
  [[ -x /usr/lib/cni/bridge ]] || missing+=(cni)
  [[ -x $PG_BIN/initdb ]] || missing+=(pg)
  [[ -x /bin/busybox ]] || missing+=(busybox)
  if ((${#missing[@]})); then
    log "installing from Debian: containerd runc containernetworking-plugins iptables conntrack busybox-static postgresql-15"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq containerd runc containernetworking-plugins iptables \
      conntrack busybox-static openssl postgresql-15 >/dev/null
  fi
}

binaries() {
  ../../tools/build-binaries.sh apiserver node kwok
}

running() { [[ -f $E2E_STATE/pids/$1 ]] && kill -0 "$(cat "$E2E_STATE/pids/$1")" 2>/dev/null; }

start() { # name command...
  local name=$1; shift
  if running "$name"; then return 0; fi
  log "starting $name"
  setsid "$@" >"$E2E_STATE/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$E2E_STATE/pids/$name"
}

wait_for() { # description seconds command...
  local what=$1 secs=$2; shift 2
  for ((i = 0; i < secs * 5; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "timed out waiting for $what; logs in $E2E_STATE/logs" >&2; return 1
}

host_ip() { ip -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p' | head -1; }

pki() {
  local d=$E2E_STATE/pki
  front_proxy_pki
  [[ -f $d/admin.crt ]] && return 0
  log "creating certificates"
  local ip; ip=$(host_ip)
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=drover-e2e-ca" -keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null
  cat >"$d/apiserver.ext" <<EXT
subjectAltName=IP:127.0.0.1,IP:$ip,IP:$API_SERVICE_IP,IP:$BRIDGE_IP,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
EXT
  cert apiserver "/CN=kube-apiserver" "$d/apiserver.ext"
  cert admin "/O=system:masters/CN=drover-e2e-admin"
  openssl genrsa -out "$d/sa.key" 2048 2>/dev/null
  openssl rsa -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
}

# The aggregation layer (KEDA's external metrics API is an aggregated API server): the
# apiserver proxies requests with a client certificate from its own CA, which the extension
# server trusts through kube-system/extension-apiserver-authentication.
front_proxy_pki() {
  local d=$E2E_STATE/pki
  [[ -f $d/front-proxy-client.crt ]] && return 0
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=drover-e2e-front-proxy-ca" \
    -keyout "$d/front-proxy-ca.key" -out "$d/front-proxy-ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=front-proxy-client" -keyout "$d/front-proxy-client.key" \
    -out "$d/front-proxy-client.csr" 2>/dev/null
  openssl x509 -req -in "$d/front-proxy-client.csr" -CA "$d/front-proxy-ca.crt" -CAkey "$d/front-proxy-ca.key" \
    -CAcreateserial -days 3650 -out "$d/front-proxy-client.crt" 2>/dev/null
}

cert() { # name subject [extfile]
  local d=$E2E_STATE/pki
  openssl req -newkey rsa:2048 -nodes -subj "$2" -keyout "$d/$1.key" -out "$d/$1.csr" 2>/dev/null
  openssl x509 -req -in "$d/$1.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 3650 \
    ${3:+-extfile "$3"} -out "$d/$1.crt" 2>/dev/null
}

kubeconfig() {
  local d=$E2E_STATE/pki
  cat >"$KUBECONFIG_FILE" <<KC
apiVersion: v1
kind: Config
clusters:
- name: drover-e2e
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority: $d/ca.crt
users:
- name: admin
  user:
    client-certificate: $d/admin.crt
    client-key: $d/admin.key
contexts:
- name: drover-e2e
  context: {cluster: drover-e2e, user: admin}
current-context: drover-e2e
KC
}

network() {
  # Remember what we change on the host, once, so down.sh can restore it.
  [[ -f $E2E_STATE/ip_forward.orig ]] || cat /proc/sys/net/ipv4/ip_forward >"$E2E_STATE/ip_forward.orig"
  echo 1 >/proc/sys/net/ipv4/ip_forward
  modprobe br_netfilter 2>/dev/null || true
  if [[ -w /proc/sys/net/bridge/bridge-nf-call-iptables ]]; then
    [[ -f $E2E_STATE/bridge-nf.orig ]] || cat /proc/sys/net/bridge/bridge-nf-call-iptables >"$E2E_STATE/bridge-nf.orig"
    echo 1 >/proc/sys/net/bridge/bridge-nf-call-iptables
  fi
  # The bridge exists before any pod, so PostgreSQL can listen on its IP.
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
    ip addr add "$BRIDGE_IP/16" dev "$BRIDGE"
  fi
  ip link set "$BRIDGE" up
  cat >"$E2E_STATE/cni/net.d/10-drover.conflist" <<CNI
{
  "cniVersion": "1.0.0",
  "name": "drover-e2e",
  "plugins": [
    {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": true, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$BRIDGE_IP"}]],
              "routes": [{"dst": "0.0.0.0/0"}], "dataDir": "$E2E_STATE/cni/ipam"}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
CNI
}

containerd_up() {
  mkdir -p "$E2E_RUN/containerd" "$E2E_STATE/containerd"
  cat >"$E2E_STATE/containerd.toml" <<TOML
version = 2
root = "$E2E_STATE/containerd"
state = "$E2E_RUN/containerd/state"
[grpc]
  address = "$CONTAINERD_SOCK"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # root here lacks CAP_SYS_RESOURCE: without this every sandbox fails to start.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$E2E_STATE/cni/net.d"
TOML
  start containerd containerd --config "$E2E_STATE/containerd.toml"
  wait_for containerd 30 ctr --address "$CONTAINERD_SOCK" version
}

pause_image() {
  ctr --address "$CONTAINERD_SOCK" -n k8s.io images ls -q | grep -qx "$PAUSE_IMAGE" && return 0
  log "building the pause image (busybox sleep) daemonless"
  local w; w=$(mktemp -d)
  mkdir -p "$w/rootfs/bin"
  cp /bin/busybox "$w/rootfs/bin/busybox"
  umoci init --layout "$w/layout" && umoci new --image "$w/layout:pause"
  umoci unpack --image "$w/layout:pause" "$w/bundle" >/dev/null
  cp -a "$w/rootfs/." "$w/bundle/rootfs/"
  umoci repack --image "$w/layout:pause" "$w/bundle"
  umoci config --image "$w/layout:pause" --config.entrypoint /bin/busybox --config.entrypoint sleep \
    --config.entrypoint 2147483647 --clear config.cmd --os linux --architecture amd64
  skopeo copy --quiet "oci:$w/layout:pause" "oci-archive:$w/pause.tar:$PAUSE_IMAGE"
  ctr --address "$CONTAINERD_SOCK" -n k8s.io images import "$w/pause.tar" >/dev/null
  rm -rf "$w"
}

etcd_up() {
  start etcd "$BIN/etcd" --data-dir "$E2E_STATE/etcd" --listen-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --quota-backend-bytes 4294967296
  wait_for etcd 30 curl -sf "http://127.0.0.1:$ETCD_PORT/health"
}

apiserver_up() {
  local d=$E2E_STATE/pki
  start kube-apiserver "$BIN/kube-apiserver" --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address 0.0.0.0 --secure-port "$API_PORT" --advertise-address "$(host_ip)" \
    --tls-cert-file "$d/apiserver.crt" --tls-private-key-file "$d/apiserver.key" \
    --client-ca-file "$d/ca.crt" --service-cluster-ip-range "$SERVICE_CIDR" \
    --service-account-issuer https://kubernetes.default.svc --service-account-key-file "$d/sa.pub" \
    --service-account-signing-key-file "$d/sa.key" --authorization-mode Node,RBAC \
    --kubelet-client-certificate "$d/admin.crt" --kubelet-client-key "$d/admin.key" \
    --kubelet-preferred-address-types InternalIP,Hostname \
    --requestheader-client-ca-file "$d/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
    --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
    --requestheader-extra-headers-prefix X-Remote-Extra- \
    --proxy-client-cert-file "$d/front-proxy-client.crt" --proxy-client-key-file "$d/front-proxy-client.key" \
    --allow-privileged=true --enable-priority-and-fairness=false
  wait_for kube-apiserver 90 "$BIN/kubectl" --kubeconfig "$KUBECONFIG_FILE" get --raw /readyz
}

controllers_up() {
  local d=$E2E_STATE/pki
  start kube-controller-manager "$BIN/kube-controller-manager" --kubeconfig "$KUBECONFIG_FILE" \
    --service-account-private-key-file "$d/sa.key" --root-ca-file "$d/ca.crt" \
    --cluster-signing-cert-file "$d/ca.crt" --cluster-signing-key-file "$d/ca.key" \
    --use-service-account-credentials=false --leader-elect=false --controllers '*' \
    --allocate-node-cidrs=false --secure-port 10257
  start kube-scheduler "$BIN/kube-scheduler" --kubeconfig "$KUBECONFIG_FILE" --leader-elect=false --secure-port 10259
}

kubelet_up() {
  local ip; ip=$(host_ip)
  cat >"$E2E_STATE/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $E2E_STATE/pki/ca.crt}
authorization: {mode: AlwaysAllow}
readOnlyPort: 0
port: 10250
resolvConf: /etc/resolv.conf
serializeImagePulls: false
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
YAML
  start kubelet "$BIN/kubelet" --config "$E2E_STATE/kubelet.yaml" --kubeconfig "$KUBECONFIG_FILE" \
    --root-dir "$E2E_STATE/kubelet" --hostname-override "$NODE_NAME" --node-ip "$ip" \
    --containerd "$CONTAINERD_SOCK" \
    --node-labels "node.kubernetes.io/instance-type=$NODE_INSTANCE_TYPE,drover.io/e2e-node=real"
  start kube-proxy "$BIN/kube-proxy" --kubeconfig "$KUBECONFIG_FILE" --hostname-override "$NODE_NAME" \
    --cluster-cidr "$POD_CIDR" --proxy-mode iptables --metrics-bind-address 127.0.0.1:10249 \
    --healthz-bind-address 127.0.0.1:10256 --conntrack-max-per-core 0
  wait_for "node $NODE_NAME Ready" 120 bash -c "'$BIN/kubectl' --kubeconfig '$KUBECONFIG_FILE' get node $NODE_NAME \
    -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -q True"
}

fake_node_up() {
  # kwok's default stages (node ready + heartbeat, pods become ready), from its Go module.
  if [[ ! -s $E2E_STATE/kwok-stages.yaml ]]; then
    local src; src=$(cd /tmp && GOSUMDB=off GOFLAGS=-mod=mod go mod download -json sigs.k8s.io/kwok@v0.8.0 | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
    for f in "$src"/kustomize/stage/node/fast/node-initialize.yaml "$src"/kustomize/stage/node/heartbeat/node-heartbeat.yaml \
      "$src"/kustomize/stage/pod/fast/pod-*.yaml; do cat "$f"; echo "---"; done >"$E2E_STATE/kwok-stages.yaml"
  fi
  start kwok "$BIN/kwok" --kubeconfig "$KUBECONFIG_FILE" --config "$E2E_STATE/kwok-stages.yaml" --manage-all-nodes=false \
    --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake --node-lease-duration-seconds 40 \
    --server-address 127.0.0.1:10290
  "$BIN/kubectl" --kubeconfig "$KUBECONFIG_FILE" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Node
metadata:
  name: $FAKE_NODE_NAME
  annotations: {kwok.x-k8s.io/node: fake}
  labels:
    kubernetes.io/hostname: $FAKE_NODE_NAME
    node.kubernetes.io/instance-type: $FAKE_NODE_INSTANCE_TYPE
    type: kwok
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
YAML
}

postgres_up() {
  local data=$E2E_STATE/pg/data
  if [[ ! -f $data/PG_VERSION ]]; then
    log "initialising PostgreSQL (the RDS stand-in) in $data"
    mkdir -p "$data" && chown -R postgres:postgres "$E2E_STATE/pg"
    su postgres -s /bin/sh -c "$PG_BIN/initdb -D '$data' -U postgres --auth-local=trust --auth-host=scram-sha-256 >/dev/null"
    cat >>"$data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1,$BRIDGE_IP'
port = $PG_PORT
max_connections = 300
unix_socket_directories = '$E2E_STATE/pg'
CONF
    # Pods come from the pod CIDR; the host's tests from 127.0.0.1.
    echo "host all all $POD_CIDR scram-sha-256" >>"$data/pg_hba.conf"
  fi
  if ! su postgres -s /bin/sh -c "$PG_BIN/pg_ctl -D '$data' status" >/dev/null 2>&1; then
    log "starting PostgreSQL on $BRIDGE_IP:$PG_PORT"
    su postgres -s /bin/sh -c "$PG_BIN/pg_ctl -D '$data' -l '$E2E_STATE/pg/postgres.log' -w start" >/dev/null
  fi
  su postgres -s /bin/sh -c "psql -h '$E2E_STATE/pg' -p $PG_PORT -U postgres -qtAc \"select 1 from pg_roles where rolname='drover'\"" | grep -q 1 ||
    su postgres -s /bin/sh -c "psql -h '$E2E_STATE/pg' -p $PG_PORT -U postgres -qc \"create role drover login password 'drover-e2e'\" -c 'create database jobs owner drover'"
}

packages
binaries
pki
kubeconfig
network
containerd_up
pause_image
etcd_up
apiserver_up
controllers_up
kubelet_up
fake_node_up
postgres_up
log "up: export KUBECONFIG=$KUBECONFIG_FILE   (PostgreSQL: $BRIDGE_IP:$PG_PORT db jobs user drover)"
