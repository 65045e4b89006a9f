#!/usr/bin/env bash
# Runs one benchmark in the cluster against a running ExecutorCluster: a Kubernetes Job (the
# executor image in bench mode) seeds N jobs of a kind into the cluster's database schema and
# times how fast the cluster drains them, reading the nodes' own /q/metrics. For a cluster of
# engine Flowable the Job runs the Flowable executor image's FlowableBench instead, which seeds
# process instances of its bundled models the same way (all visible at once) and writes the
# same result document. The result JSON
# (the same document `make bench` writes) is printed, kept in a ConfigMap named like the Job,
# and written to --out=DIR if given.
#
#   e2e/bench/run-one.sh --cluster=NAME [--namespace=default] [--kind=noop|sleep:100|timer]
#                        [--jobs=20000] [--timeout=600s] [--out=DIR]
set -euo pipefail
KUBECTL=${KUBECTL:-kubectl}
NS=default KIND=noop JOBS=20000 TIMEOUT=600s OUT="" CLUSTER=""
for arg in "$@"; do
  case $arg in
    --cluster=*) CLUSTER=${arg#*=} ;; --namespace=*) NS=${arg#*=} ;; --kind=*) KIND=${arg#*=} ;;
    --jobs=*) JOBS=${arg#*=} ;; --timeout=*) TIMEOUT=${arg#*=} ;; --out=*) OUT=${arg#*=} ;;
    *) echo "unknown option $arg" >&2; exit 2 ;;
  esac
done
[[ -n $CLUSTER ]] || { echo "--cluster=NAME (an ExecutorCluster) is required" >&2; exit 2; }

field() { "$KUBECTL" -n "$NS" get executorcluster "$CLUSTER" -o jsonpath="{$1}"; }
# The scenario's labels come from the cluster itself, so the result says what really ran.
LOCK_MODE=$(field .spec.lockMode); PAGE=$(field .spec.acquirePageSize); THREADS=$(field .spec.threads)
QUEUE=$(field .spec.queueSize); SCHEMA=$(field .spec.schema); SCHEMA=${SCHEMA:-drover}
HOST=$(field .spec.database.host); PORT=$(field .spec.database.port); DB=$(field .spec.database.name)
SSL=$(field .spec.database.sslMode); SECRET=$(field .spec.database.credentialsSecret.name)
USER_KEY=$(field .spec.database.credentialsSecret.usernameKey); PASS_KEY=$(field .spec.database.credentialsSecret.passwordKey)
IMAGE=$("$KUBECTL" -n "$NS" get statefulset "$CLUSTER" -o jsonpath='{.spec.template.spec.containers[0].image}')
ENGINE=$(field .spec.engine); ENGINE=${ENGINE:-Drover}
if [[ $ENGINE == Flowable ]]; then
  # The image's libraries without Quarkus' launcher: FlowableBench is a plain main (no shell in the image).
  COMMAND='command: [/opt/java/bin/java, -Djava.util.logging.manager=org.jboss.logmanager.LogManager, -cp, "/app/lib/boot/*:/app/lib/main/*:/app/app/*", io.drover.flowable.bench.FlowableBench]'
  RUN_ARGS='[run'
else
  COMMAND=''
  RUN_ARGS='[bench, run'
fi

# Every executor pod's metrics endpoint, by pod IP (works without cluster DNS).
"$KUBECTL" -n "$NS" wait executorcluster "$CLUSTER" --for=condition=Ready --timeout=300s >/dev/null
IPS=$("$KUBECTL" -n "$NS" get pods -l "app.kubernetes.io/instance=$CLUSTER,app.kubernetes.io/name=drover-executor" \
  --field-selector=status.phase=Running -o jsonpath='{range .items[*]}{.status.podIP}{" "}{end}')
URLS=$(for ip in $IPS; do printf 'http://%s:8080/q/metrics,' "$ip"; done); URLS=${URLS%,}
NODES=$(wc -w <<<"$IPS")
NAME=drover-bench-$(date +%Y%m%d%H%M%S)

echo "[bench] $NAME: $KIND x $JOBS on $CLUSTER ($ENGINE, $NODES nodes, $LOCK_MODE, page $PAGE, threads $THREADS)" >&2
"$KUBECTL" -n "$NS" apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $NAME
  labels: {app.kubernetes.io/name: drover-bench, app.kubernetes.io/instance: $CLUSTER}
spec:
  backoffLimit: 0
  ttlSecondsAfterFinished: 86400
  template:
    metadata:
      # drover.io/client: the cluster's NetworkPolicy lets this pod scrape the executors' metrics.
      labels: {app.kubernetes.io/name: drover-bench, drover.io/client: $CLUSTER}
    spec:
      restartPolicy: Never
      automountServiceAccountToken: false
      securityContext: {runAsNonRoot: true, runAsUser: 10001, seccompProfile: {type: RuntimeDefault}}
      # Never on a kwok fake node (label type=kwok, as the local cluster has): its pods do not run.
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms: [{matchExpressions: [{key: type, operator: NotIn, values: [kwok]}]}]
      containers:
      - name: bench
        image: $IMAGE
        imagePullPolicy: IfNotPresent
        $COMMAND
        args: $RUN_ARGS, "--jdbc-url=jdbc:postgresql://$HOST:$PORT/$DB?sslmode=$SSL", "--user=\$(DB_USER)",
               "--schema=$SCHEMA", "--kind=$KIND", "--jobs=$JOBS", "--lockMode=$LOCK_MODE",
               "--acquirePageSize=$PAGE", "--threads=$THREADS", "--queueSize=$QUEUE", "--nodes=$NODES",
               "--metrics-urls=$URLS", "--timeout=$TIMEOUT"]
        env:
        - {name: DB_USER, valueFrom: {secretKeyRef: {name: $SECRET, key: ${USER_KEY:-username}}}}
        - {name: PGPASSWORD, valueFrom: {secretKeyRef: {name: $SECRET, key: ${PASS_KEY:-password}}}}
        resources:
          requests: {cpu: 100m, memory: 256Mi}
          limits: {memory: 512Mi}
        securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
        volumeMounts: [{name: tmp, mountPath: /tmp}]
      volumes: [{name: tmp, emptyDir: {}}]
YAML
# Until it completes or fails (a failed Job never completes: waiting for Complete alone sat out the timeout).
deadline=$((SECONDS + 1800))
until [[ $("$KUBECTL" -n "$NS" get "job/$NAME" -o jsonpath='{.status.succeeded}') == 1 ]]; do
  if [[ -n $("$KUBECTL" -n "$NS" get "job/$NAME" -o jsonpath='{.status.failed}') ]] || ((SECONDS > deadline)); then
    "$KUBECTL" -n "$NS" logs "job/$NAME" >&2 || true; echo "[bench] $NAME failed" >&2; exit 1
  fi
  sleep 2
done
LOG=$("$KUBECTL" -n "$NS" logs "job/$NAME")
# The text summary, then the JSON document (from the first line that is just "{"). A VACUUM that
# fell short is said early in the text, above the summary's tail: it is repeated here, so the
# matrix's output shows that a drain ran on the dead rows of the runs before it.
grep 'VACUUM .*fell short' <<<"$LOG" >&2 || true
sed -n '/^{$/q;p' <<<"$LOG" | tail -n 8 >&2
JSON=$(sed -n '/^{$/,$p' <<<"$LOG")
"$KUBECTL" -n "$NS" create configmap "$NAME" --from-literal=result.json="$JSON" >/dev/null
"$KUBECTL" -n "$NS" label configmap "$NAME" app.kubernetes.io/name=drover-bench "app.kubernetes.io/instance=$CLUSTER" >/dev/null
if [[ -n $OUT ]]; then mkdir -p "$OUT" && printf '%s\n' "$JSON" >"$OUT/$NAME.json"; fi
printf '%s\n' "$JSON"
