#!/usr/bin/env bash
# Builds the Kubernetes-side binaries Drover's tests and local cluster need, from Go modules,
# once, into a cache directory. No binary downloads exist on our machines; the Go module proxy
# does (see ../shared/TOOLCHAIN.md), so everything is compiled from pinned module versions.
#
#   tools/build-binaries.sh [group...]     groups: apiserver (kube-apiserver, etcd, kubectl),
#                                          node (controller-manager, scheduler, kubelet, kube-proxy),
#                                          kube-controller-manager (alone: the operator tests' garbage collector),
#                                          helm, kubeconform, kwok, keda, keda-crds; default: all
#
# Output: $DROVER_CACHE/bin/<name> (DROVER_CACHE defaults to ~/.cache/drover). A binary that
# exists is not rebuilt; delete it to force a rebuild.
set -euo pipefail

K8S_VERSION=v1.34.2
K8S_STAGING_VERSION=v0.34.2
ETCD_VERSION=v3.6.16
HELM_VERSION=v3.22.0
KUBECONFORM_VERSION=v0.8.0
KWOK_VERSION=v0.8.0
KEDA_VERSION=v2.21.0

CACHE=${DROVER_CACHE:-$HOME/.cache/drover}
BIN=$CACHE/bin
WORK=$CACHE/go-build
mkdir -p "$BIN" "$WORK"
export GOSUMDB=off GOFLAGS=-mod=mod GOTOOLCHAIN=local
command -v go >/dev/null || PATH=/usr/local/go/bin:$PATH

log() { echo "[build-binaries] $*" >&2; }
have() { [[ -x $BIN/$1 ]]; }

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
  log "resolving k8s.io/kubernetes $K8S_VERSION"
  (cd "$dir" && go mod tidy) && touch "$dir/.tidy-done"
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
  log "building $name $v"
  (cd "$WORK/k8s" && go build -ldflags "-s -w $ld" -o "$BIN/$name.tmp" "k8s.io/kubernetes/cmd/$name") && mv "$BIN/$name.tmp" "$BIN/$name"
}

etcd_build() {
  have etcd && return 0
  local dir=$WORK/etcd
  mkdir -p "$dir"
  [[ -f $dir/go.mod ]] || (cd "$dir" && go mod init drover.io/etcd-binary >/dev/null 2>&1)
  log "building etcd $ETCD_VERSION"
  (cd "$dir" && go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" && go build -ldflags "-s -w" -o "$BIN/etcd.tmp" go.etcd.io/etcd/server/v3) && mv "$BIN/etcd.tmp" "$BIN/etcd"
}

go_install() { # name module@version
  have "$1" && return 0
  log "installing $2"
  GOBIN=$BIN go install -ldflags "-s -w" "$2"
}

keda_src() { # prints the module directory of KEDA's source (CRDs, manifests)
  go mod download -json "github.com/kedacore/keda/v2@$KEDA_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'
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
    (cd "$dir" && go mod tidy) && touch "$dir/.tidy-done"
  fi
  log "building KEDA $KEDA_VERSION operator and metrics adapter"
  # Static binaries, as KEDA's own images have them: the images carry no libc.
  (cd "$dir" && export CGO_ENABLED=0 && go build -ldflags "-s -w" -o "$BIN/keda-operator" github.com/kedacore/keda/v2/cmd/operator \
    && go build -ldflags "-s -w" -o "$BIN/keda-adapter" github.com/kedacore/keda/v2/cmd/adapter)
}

# io.fabric8:kube-api-test (operator tests) looks for $KUBE_API_TEST_DIR/k8s/<version>-linux-amd64/.
link_kube_api_test() {
  local dir=$CACHE/kube-api-test/k8s/${K8S_VERSION#v}-linux-amd64
  mkdir -p "$dir"
  for b in kube-apiserver etcd kubectl; do ln -sf "$BIN/$b" "$dir/$b"; done
}

groups=("$@")
[[ ${#groups[@]} -eq 0 ]] && groups=(apiserver node helm kubeconform kwok keda-crds keda)
for g in "${groups[@]}"; do
  case $g in
    apiserver) k8s_build kube-apiserver; etcd_build; k8s_build kubectl; link_kube_api_test ;;
    kube-controller-manager) k8s_build kube-controller-manager ;;
    node) for n in kube-controller-manager kube-scheduler kubelet kube-proxy; do k8s_build $n; done ;;
    helm) go_install helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" ;;
    kubeconform) go_install kubeconform "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION" ;;
    kwok) go_install kwok "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" ;;
    keda-crds) keda_crds ;;
    keda) keda_build ;;
    *) echo "unknown group: $g" >&2; exit 2 ;;
  esac
done
log "binaries in $BIN"
