#!/usr/bin/env bash
# Builds the Kubernetes-side binaries Drover's tests and local cluster need, from Go modules,
# once, into a cache directory. No binary downloads exist on our machines; the Go module proxy
# does (see ../shared/TOOLCHAIN.md), so everything is compiled from pinned module versions.
#
#   tools/build-binaries.sh [--plan] [group...]
#     groups: apiserver (kube-apiserver, etcd, kubectl),
#             node (controller-manager, scheduler, kubelet, kube-proxy),
#             kube-controller-manager (alone: the operator tests' garbage collector),
#             helm, kubeconform, kwok, keda, keda-crds,
#             prometheus (prometheus and promtool: the alert tests, make e2e, make run),
#             cluster (all a local cluster with KEDA and the operator needs); default: all
#     --plan  only print what would be built and roughly how long it takes
#
# Every entry point (make run/test/e2e/bench-cluster, the e2e scripts) names the groups it
# uses, so each works on a machine where nothing was built before.
#
# Output: $DROVER_CACHE/bin/<name> (DROVER_CACHE defaults to ~/.cache/drover). A binary that
# exists is not rebuilt; delete it to force a rebuild. Go's own chatter (module downloads,
# compiler output) goes to $DROVER_CACHE/logs/build-binaries.log; this script prints one line
# per step, with the time it took.
set -euo pipefail

K8S_VERSION=v1.34.2
K8S_STAGING_VERSION=v0.34.2
ETCD_VERSION=v3.6.16
HELM_VERSION=v3.22.0
KUBECONFORM_VERSION=v0.8.0
KWOK_VERSION=v0.8.0
KEDA_VERSION=v2.21.0
# Prometheus 3.16 (its Go module numbers v3.x.y as v0.3xx.y).
PROMETHEUS_VERSION=v0.316.0

CACHE=${DROVER_CACHE:-$HOME/.cache/drover}
BIN=$CACHE/bin
WORK=$CACHE/go-build
export GOSUMDB=off GOFLAGS=-mod=mod GOTOOLCHAIN=local
command -v go >/dev/null || PATH=/usr/local/go/bin:$PATH

LOG=$CACHE/logs/build-binaries.log

log() { echo "[build-binaries] $*" >&2; }
have() { [[ -x $BIN/$1 ]]; }

# Rough cost of each binary on a machine of our kind (2 cores), measured with 'make run' on a
# fresh machine (cold: Go's module and build caches empty; 16 min 45 s in all) and from an empty
# DROVER_CACHE with Go's caches kept (warm: only linking is left; 55 s in all). Printed before a
# build starts. Cold figures after the first are small because kube-apiserver compiled most of
# what the others share.
declare -A COLD=([kube-apiserver]=245 [etcd]=35 [kubectl]=26 [kube-controller-manager]=57
  [kube-scheduler]=5 [kubelet]=18 [kube-proxy]=8 [helm]=73 [kubeconform]=20 [kwok]=84
  [keda]=447 [keda-crds]=1 [prometheus]=130)
declare -A WARM=([kube-apiserver]=5 [etcd]=4 [kubectl]=3 [kube-controller-manager]=5
  [kube-scheduler]=2 [kubelet]=4 [kube-proxy]=2 [helm]=5 [kubeconform]=3 [kwok]=6
  [keda]=16 [keda-crds]=1 [prometheus]=8)

# Runs a command with its output in the log; on failure shows the log's tail.
quietly() {
  echo "### $(date -Is) $*" >>"$LOG"
  if ! "$@" >>"$LOG" 2>&1; then
    log "FAILED: $*  (last lines of $LOG:)"
    tail -n 30 "$LOG" >&2
    return 1
  fi
}

STEP=0 STEPS=0
# step NAME COMMAND...: one numbered progress line per binary, with the time it took.
step() {
  local name=$1; shift
  STEP=$((STEP + 1))
  log "($STEP/$STEPS) $name ..."
  local t0=$SECONDS
  "$@"
  log "($STEP/$STEPS) $name done in $(dur $((SECONDS - t0)))"
}
dur() { (($1 >= 60)) && echo "$(($1 / 60)) min $(($1 % 60)) s" || echo "$1 s"; }

k8s_module() {
  local dir=$WORK/k8s
  [[ -f $dir/go.sum && -f $dir/.tidy-done ]] && return 0
  mkdir -p "$dir"
  local staging=(api apiextensions-apiserver apimachinery apiserver cli-runtime client-go
    cloud-provider cluster-bootstrap code-generator component-base component-helpers
    controller-manager cri-api cri-client csi-translation-lib dynamic-resource-allocation
    endpointslice externaljwt kms kube-aggregator kube-controller-manager kube-proxy
    kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission sample-apiserver
    sample-cli-plugin sample-controller)
  {
    echo "module drover.io/k8s-binaries"
    echo
    echo "go 1.24"
    echo
    echo "require k8s.io/kubernetes $K8S_VERSION"
    echo
    for s in "${staging[@]}"; do echo "replace k8s.io/$s => k8s.io/$s $K8S_STAGING_VERSION"; done
  } >"$dir/go.mod"
  cat >"$dir/tools.go" <<'GO'
//go:build tools

// Imports only so that `go mod tidy` keeps the commands' dependencies.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  log "resolving k8s.io/kubernetes $K8S_VERSION and its modules (once)"
  (cd "$dir" && quietly go mod tidy) && touch "$dir/.tidy-done"
}

k8s_build() {
  local name=$1
  have "$name" && return 0
  k8s_module
  local v=$K8S_VERSION minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
  local ld=""
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $pkg.gitVersion=$v -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  (cd "$WORK/k8s" && quietly go build -ldflags "-s -w $ld" -o "$BIN/$name.tmp" "k8s.io/kubernetes/cmd/$name") && mv "$BIN/$name.tmp" "$BIN/$name"
}

etcd_build() {
  have etcd && return 0
  local dir=$WORK/etcd
  mkdir -p "$dir"
  [[ -f $dir/go.mod ]] || (cd "$dir" && quietly go mod init drover.io/etcd-binary)
  (cd "$dir" && quietly go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" && quietly go build -ldflags "-s -w" -o "$BIN/etcd.tmp" go.etcd.io/etcd/server/v3) && mv "$BIN/etcd.tmp" "$BIN/etcd"
}

go_install() { # name module@version
  have "$1" && return 0
  GOBIN=$BIN quietly go install -ldflags "-s -w" "$2"
}

# Prometheus and promtool with only the Kubernetes service discovery: the other discovery
# plugins pull in modules the proxy does not serve (hashicorp/nomad's), and Debian's build
# leaves Kubernetes discovery out.
prometheus_build() {
  GOBIN=$BIN quietly go install -tags remove_all_sd,enable_kubernetes_sd -ldflags "-s -w" \
    "github.com/prometheus/prometheus/cmd/prometheus@$PROMETHEUS_VERSION" \
    "github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_VERSION"
}

keda_src() { # prints the module directory of KEDA's source (CRDs, manifests)
  go mod download -json "github.com/kedacore/keda/v2@$KEDA_VERSION" 2>>"$LOG" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'
}

keda_crds() {
  local out=$CACHE/keda-$KEDA_VERSION
  [[ -d $out/crds ]] && return 0
  local src; src=$(keda_src)
  mkdir -p "$out"
  cp -r "$src/config" "$out/config"
  mkdir -p "$out/crds" && cp "$src"/config/crd/bases/*.yaml "$out/crds/"
  chmod -R u+w "$out"
}

keda_build() {
  have keda-operator && have keda-adapter && return 0
  local dir=$WORK/keda src
  src=$(keda_src)
  mkdir -p "$dir"
  if [[ ! -f $dir/.tidy-done ]]; then
    {
      echo "module drover.io/keda-binaries"; echo; echo "go 1.24"; echo
      echo "require github.com/kedacore/keda/v2 $KEDA_VERSION"; echo
      grep -E '^replace ' "$src/go.mod" || true
      awk '/^replace \(/{f=1;next} f&&/^\)/{f=0} f{print "replace " $0}' "$src/go.mod"
    } >"$dir/go.mod"
    printf '//go:build tools\n\npackage tools\n\nimport (\n\t_ "github.com/kedacore/keda/v2/cmd/operator"\n\t_ "github.com/kedacore/keda/v2/cmd/adapter"\n)\n' >"$dir/tools.go"
    (cd "$dir" && quietly go mod tidy) && touch "$dir/.tidy-done"
  fi
  # Static binaries, as KEDA's own images have them: the images carry no libc.
  (cd "$dir" && export CGO_ENABLED=0 && quietly go build -ldflags "-s -w" -o "$BIN/keda-operator" github.com/kedacore/keda/v2/cmd/operator \
    && quietly go build -ldflags "-s -w" -o "$BIN/keda-adapter" github.com/kedacore/keda/v2/cmd/adapter)
}

# io.fabric8:kube-api-test (operator tests) looks for $KUBE_API_TEST_DIR/k8s/<version>-linux-amd64/.
link_kube_api_test() {
  local dir=$CACHE/kube-api-test/k8s/${K8S_VERSION#v}-linux-amd64
  mkdir -p "$dir"
  for b in kube-apiserver etcd kubectl; do ln -sf "$BIN/$b" "$dir/$b"; done
}

PLAN_ONLY=0
[[ ${1:-} == --plan ]] && { PLAN_ONLY=1; shift; }
groups=("$@")
[[ ${#groups[@]} -eq 0 ]] && groups=(cluster kubeconform)

# The binaries (or artifacts) each group stands for, in build order.
members() {
  case $1 in
    apiserver) echo kube-apiserver etcd kubectl ;;
    kube-controller-manager) echo kube-controller-manager ;;
    node) echo kube-controller-manager kube-scheduler kubelet kube-proxy ;;
    helm|kubeconform|kwok|keda-crds|prometheus) echo "$1" ;;
    keda) echo keda ;;
    cluster) for g in apiserver node kwok helm keda-crds keda; do members $g; done ;;
    *) echo "unknown group: $1" >&2; return 2 ;;
  esac
}
built() { # is this member already in the cache?
  case $1 in
    keda) have keda-operator && have keda-adapter ;;
    keda-crds) [[ -d $CACHE/keda-$KEDA_VERSION/crds ]] ;;
    prometheus) have prometheus && have promtool ;;
    *) have "$1" ;;
  esac
}
todo=()
for g in "${groups[@]}"; do
  for m in $(members "$g"); do
    built "$m" || [[ " ${todo[*]} " == *" $m "* ]] || todo+=("$m")
  done
done
STEPS=${#todo[@]}
if ((STEPS)); then
  cold=0 warm=0
  for m in "${todo[@]}"; do cold=$((cold + COLD[$m])); warm=$((warm + WARM[$m])); done
  log "to build into $BIN (once; kept for later runs): ${todo[*]}"
  log "expect about $(dur $cold) on a machine that never built them (Go downloads and compiles"
  log "  Kubernetes and KEDA), about $(dur $warm) when Go's build cache is warm; Go's output: $LOG"
fi
((PLAN_ONLY)) && exit 0
mkdir -p "$BIN" "$WORK" "${LOG%/*}"

build_member() {
  case $1 in
    kube-apiserver|kube-controller-manager|kube-scheduler|kubelet|kube-proxy|kubectl) k8s_build "$1" ;;
    etcd) etcd_build ;;
    helm) go_install helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" ;;
    kubeconform) go_install kubeconform "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION" ;;
    kwok) go_install kwok "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" ;;
    keda-crds) keda_crds ;;
    keda) keda_build ;;
    prometheus) prometheus_build ;;
  esac
}
for m in "${todo[@]}"; do step "$m" build_member "$m"; done
# io.fabric8:kube-api-test finds the apiserver binaries through this link directory.
have kube-apiserver && have etcd && have kubectl && link_kube_api_test
((STEPS)) && log "binaries in $BIN"
exit 0
