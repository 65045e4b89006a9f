#!/usr/bin/env bash
# Builds a Drover image (executor, Flowable executor or operator: all Quarkus applications) without a Docker
# engine, as an OCI archive that containerd can import (`ctr -n k8s.io images import <archive>`):
# a jlink'ed Java runtime from the build JDK, glibc from Debian's packages, the Quarkus
# application, a non-root user (10001), no shell.
#
#   tools/build-image.sh <quarkus-app dir> <output archive> <image reference>
set -euo pipefail

APP=${1:?quarkus-app directory}
OUT=${2:?output archive path}
REF=${3:?image reference, e.g. localhost/drover-executor:0.1.0}
JAVA_HOME=${JAVA_HOME:?JAVA_HOME must point at a JDK 21+}
UID_GID=10001:10001
TITLE=${REF##*/}; TITLE=${TITLE%%:*}

# The modules the services need (Quarkus, Agroal/pgjdbc, Jackson, Micrometer, the Kubernetes
# client, JFR for profiling, jcmd for thread dumps). Checked by image-test, which runs the
# executor from the image, and by the e2e suite, which runs both in a cluster.
MODULES=java.base,java.logging,java.naming,java.net.http,java.sql,java.management,java.xml,\
jdk.unsupported,java.security.jgss,java.security.sasl,jdk.crypto.ec,java.instrument,jdk.management,\
jdk.jfr,jdk.management.jfr,java.rmi,jdk.zipfs,jdk.naming.dns,java.transaction.xa,jdk.net,jdk.jcmd
# No java.desktop (AWT, java.beans): it was there for the benchmark's charts, now in bench/. jdeps
# still lists it for micrometer-core, quarkus-core and commons-lang3 (a circuit breaker neither
# service uses); image-test runs the executor without it and make e2e both services.
# EXTRA_MODULES adds what one image needs beyond them: the Flowable executor's engine reads
# java.beans (java.desktop) and builds a ScriptEngineManager (java.scripting) as it starts.
[ -n "${EXTRA_MODULES:-}" ] && MODULES="$MODULES,$EXTRA_MODULES"

for tool in umoci skopeo dpkg-deb apt-get; do
  command -v "$tool" >/dev/null || { echo "image build needs '$tool' (apt-get install umoci skopeo)" >&2; exit 1; }
done
[ -f "$APP/quarkus-run.jar" ] || { echo "no $APP/quarkus-run.jar: run 'make build' first" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
ROOT="$WORK/rootfs"
mkdir -p "$ROOT"/{app,etc,tmp,opt,proc,sys,dev}  # proc/sys/dev: mount points every runtime fills
chmod 1777 "$ROOT/tmp"

echo "image: linking the Java runtime"
"$JAVA_HOME/bin/jlink" --add-modules "$MODULES" --strip-debug --no-header-files --no-man-pages \
  --compress=zip-6 --output "$ROOT/opt/java"

echo "image: adding glibc from Debian's packages"
(cd "$WORK" && apt-get download -qq libc6 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
dpkg-deb -x "$WORK"/libc6_*.deb "$WORK/libc"
# Keep the shared libraries and the dynamic loader (lib64/ld-linux-x86-64.so.2 is a link into
# lib/x86_64-linux-gnu); drop gconv modules, locales and the tools (ldd, iconv, ...).
mkdir -p "$ROOT/lib/x86_64-linux-gnu"
cp -a "$WORK"/libc/lib/x86_64-linux-gnu/*.so* "$ROOT/lib/x86_64-linux-gnu/"
cp -a "$WORK"/libc/lib64 "$ROOT/lib64"

echo "image: adding the application"
cp -a "$APP"/. "$ROOT/app/"
cat > "$ROOT/etc/passwd" <<PASSWD
root:x:0:0:root:/root:/sbin/nologin
drover:x:${UID_GID%%:*}:${UID_GID##*:}:drover:/app:/sbin/nologin
PASSWD
cat > "$ROOT/etc/group" <<GROUP
root:x:0:
drover:x:${UID_GID##*:}:
GROUP
printf 'hosts: files dns\n' > "$ROOT/etc/nsswitch.conf"
# Kubernetes mounts its own /etc/hosts; this one serves chroot smoke tests and plain runtimes.
printf '127.0.0.1 localhost\n::1 localhost\n' > "$ROOT/etc/hosts"
# The application belongs to root and is only readable by the runtime user: a process that
# is taken over cannot rewrite the code the next start loads (pods also mount the root
# filesystem read-only; a plain runtime does not).
chown -R 0:0 "$ROOT/app"
chmod -R u+rwX,go+rX,go-w "$ROOT/app"

echo "image: packing the OCI layout"
LAYOUT="$WORK/layout"
umoci init --layout "$LAYOUT"
umoci new --image "$LAYOUT:build"
umoci unpack --image "$LAYOUT:build" "$WORK/bundle" >/dev/null
rm -rf "$WORK/bundle/rootfs"
mv "$ROOT" "$WORK/bundle/rootfs"
umoci repack --image "$LAYOUT:build" "$WORK/bundle"
# An application that ships HotSpot compiler directives (the executor's quarkus-app/jvm/, see
# executor-image/src/main/jvm/compiler-directives.json) runs with them.
JIT_FLAGS=()
if [ -f "$APP/jvm/compiler-directives.json" ]; then
  JIT_FLAGS=(--config.entrypoint -XX:+UnlockDiagnosticVMOptions
             --config.entrypoint -XX:CompilerDirectivesFile=/app/jvm/compiler-directives.json)
fi
umoci config --image "$LAYOUT:build" \
  --author "Drover" \
  --os linux --architecture amd64 \
  --config.user "$UID_GID" \
  --config.workingdir /app \
  --config.env JAVA_HOME=/opt/java \
  --config.env PATH=/opt/java/bin \
  --config.exposedports 8080/tcp \
  --config.entrypoint /opt/java/bin/java \
  --config.entrypoint -XX:MaxRAMPercentage=75 \
  --config.entrypoint -XX:+ExitOnOutOfMemoryError \
  "${JIT_FLAGS[@]}" \
  --config.entrypoint -jar \
  --config.entrypoint /app/quarkus-run.jar \
  --clear config.cmd \
  --config.label "org.opencontainers.image.title=$TITLE" \
  --config.label "org.opencontainers.image.source=tools/build-image.sh"

mkdir -p "$(dirname "$OUT")"
rm -f "$OUT"
# oci-archive with the full reference as ref.name: what `ctr images import` names the image.
skopeo copy --quiet "oci:$LAYOUT:build" "oci-archive:$OUT:$REF"
echo "image: $OUT ($REF, $(du -h "$OUT" | cut -f1))"
