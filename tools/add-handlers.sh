#!/usr/bin/env bash
# Derives an executor image with handler jars in /app/handlers, without a Docker engine: the
# way a user adds handlers (docs/handlers.md: FROM the executor image, COPY the jar). The e2e
# suite uses it to run the fault campaign's `chaos` handler in the cluster. ADD_TO=/app/processes
# derives a Flowable executor image with process models and their delegates' jars the same way
# (docs/engines.md).
#
#   [ADD_TO=<dir>] tools/add-handlers.sh <base archive> <base reference> <output archive> <output reference> <file>...
set -euo pipefail
BASE=${1:?base OCI archive}; BASE_REF=${2:?base image reference}
OUT=${3:?output archive}; REF=${4:?output image reference}
shift 4
(($#)) || { echo "no file given" >&2; exit 2; }
ADD_TO=${ADD_TO:-/app/handlers}
for tool in umoci skopeo; do
  command -v "$tool" >/dev/null || { echo "needs '$tool' (apt-get install umoci skopeo)" >&2; exit 1; }
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
skopeo copy --quiet "oci-archive:$BASE:$BASE_REF" "oci:$WORK/layout:base"
umoci unpack --image "$WORK/layout:base" "$WORK/bundle" >/dev/null
mkdir -p "$WORK/bundle/rootfs$ADD_TO"
cp "$@" "$WORK/bundle/rootfs$ADD_TO/"
# Root's and readable, as the rest of /app (tools/build-image.sh): code, never written at run time.
chown -R 0:0 "$WORK/bundle/rootfs$ADD_TO"
chmod -R u+rwX,go+rX,go-w "$WORK/bundle/rootfs$ADD_TO"
umoci repack --image "$WORK/layout:base" "$WORK/bundle"
mkdir -p "$(dirname "$OUT")"
rm -f "$OUT"
skopeo copy --quiet "oci:$WORK/layout:base" "oci-archive:$OUT:$REF"
echo "image: $OUT ($REF: $* in $ADD_TO)"
