{{- define "drover-operator.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/*
The name of a cluster-scoped object (ClusterRole and its binding, admission policies): the
release's namespace too, since a release of the same name in another namespace would otherwise
take it over. Not truncated (these names may be 253 long): two long namespaces must not meet.
*/}}
{{- define "drover-operator.clusterScopedName" -}}
{{- printf "%s-%s" (include "drover-operator.fullname" .) .Release.Namespace -}}
{{- end -}}

{{- define "drover-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "drover-operator.labels" -}}
{{ include "drover-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The namespaces the operator manages when not cluster-wide: the listed ones, or the release's. */}}
{{- define "drover-operator.namespaces" -}}
{{- if .Values.watchNamespaces -}}
{{- join "," .Values.watchNamespaces -}}
{{- else -}}
{{- .Release.Namespace -}}
{{- end -}}
{{- end -}}

{{- define "drover-operator.serviceAccountName" -}}
{{- default (include "drover-operator.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{/* Rules on the namespaced objects the operator reconciles (ClusterRole or per-namespace Role). */}}
{{- define "drover-operator.namespacedRules" -}}
# The spec is the user's: the operator reads it and writes only the status (no finalizer).
- apiGroups: [drover.io]
  resources: [executorclusters]
  verbs: [get, list, watch]
- apiGroups: [drover.io]
  resources: [executorclusters/status]
  verbs: [get, patch]
# Owner references with blockOwnerDeletion need update on the owner's finalizers.
- apiGroups: [drover.io]
  resources: [executorclusters/finalizers]
  verbs: [update]
# Only the verbs the code uses (an informer on its StatefulSets; get, dry run, create and update
# with optimistic locking; nothing deleted: owner references let the garbage collector do it).
- apiGroups: [apps]
  resources: [statefulsets]
  verbs: [get, list, watch, create, update]
# A change of the node count alone goes through the scale subresource, as an HPA's does.
- apiGroups: [apps]
  resources: [statefulsets/scale]
  verbs: [update]
# Server-side apply (patch, and create for a new object), get to check ownership first; never
# listed, watched or deleted (with clusterWide that would be every Service).
- apiGroups: [""]
  resources: [services]
  verbs: [get, create, patch]
# ConfigMaps: get (the database CA bundle a cluster names), and delete of the settings ConfigMap
# operators before 2026-11-28 wrote, once no pod reads it (its own only: the writes policy). It
# writes none: the executors' settings are in their pod template.
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, delete]
# Secrets: get by name only (no list, no watch, no cache of the namespace's Secrets). The
# operator reads the Secrets an ExecutorCluster names, to check they opted in
# (drover.io/executor-secret=true) and have the keys, and the values the executors read, to
# roll them when a password rotates (an HMAC under the cluster's key, never the values
# themselves, goes into the pod template); create only for a cluster's generated API tokens
# (<name>-api) and its roll hash's key (<name>-roll-key) (create cannot be limited by name). It
# never updates or deletes a Secret.
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, create]
# Server-side apply, and removal (of its own only) when disruptionBudget.enabled is false.
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
  verbs: [get, create, patch, delete]
# Server-side apply (create or patch) and removal when networkPolicy.enabled is false.
- apiGroups: [networking.k8s.io]
  resources: [networkpolicies]
  verbs: [get, create, patch, delete]
# Server-side apply, its status read, and removal (of its own only) when autoscaling is off.
- apiGroups: [keda.sh]
  resources: [scaledobjects, triggerauthentications]
  verbs: [get, create, patch, delete]
# Read only: the executor pods' status, for the root cause of nodes that are not ready
# (scheduler message, image pull error, the executor's termination message). Never create or delete.
- apiGroups: [""]
  resources: [pods]
  verbs: [list, watch]
# Events on ExecutorClusters (kubectl describe ec); a repeat updates the first one's series.
# List: the StatefulSet controller's FailedCreate events on a cluster's StatefulSet, by field
# selector, while its pods are missing (why they cannot be created: quota, admission).
- apiGroups: [events.k8s.io]
  resources: [events]
  verbs: [get, list, create, patch]
# Read only: whether KEDA's HPA still scales a StatefulSet (the operator never writes replicas then).
- apiGroups: [autoscaling]
  resources: [horizontalpodautoscalers]
  verbs: [list]
{{- end -}}

{{/*
Whether a Prometheus Operator object of a kind is wanted: true, false, or "auto" (the API serves
that kind: some clusters install only some of the Prometheus Operator's CRDs, and a group check
rendered a PrometheusRule that `helm install` then failed on). Call with (list enabled root "Kind").
*/}}
{{- define "drover-operator.monitoringWanted" -}}
{{- $enabled := index . 0 -}}
{{- $root := index . 1 -}}
{{- $kind := index . 2 -}}
{{- if eq (toString $enabled) "auto" -}}
{{- if $root.Capabilities.APIVersions.Has (printf "monitoring.coreos.com/v1/%s" $kind) -}}true{{- end -}}
{{- else if $enabled -}}true{{- end -}}
{{- end -}}

{{/*
A CEL test that the image in the expression given is allowed by the list in the expression
given (entries of executorImage.allowedImages): the image itself, the repository with any tag
or digest (the rest has no '/': "registry.internal" does not allow
"registry.internal:5000/miner", another registry's image), or a prefix ending in "/". An entry
with a tag or digest of its own (':' or '@' after its last '/') matches only itself: "repo:1.0"
allowed "repo:1.0@sha256:<any>", which the runtime pulls by the digest. The same rule as the
operator's ImagePolicy. Call with (list "image expression" "list expression").
*/}}
{{- define "drover-operator.imageAllowedCel" -}}
{{- $image := index . 0 -}}
{{- $allowed := index . 1 -}}
{{ $allowed }}.exists(a, {{ $image }} == a || (a.endsWith('/') && {{ $image }}.startsWith(a)) || (!a.substring(a.lastIndexOf('/') + 1).contains(':') && !a.substring(a.lastIndexOf('/') + 1).contains('@') && ({{ $image }}.startsWith(a + ':') || {{ $image }}.startsWith(a + '@')) && !{{ $image }}.substring(size(a)).contains('/')))
{{- end -}}

{{/* The images the operator runs when an ExecutorCluster names none. */}}
{{- define "drover-operator.executorImage" -}}
{{ .Values.executorImage.repository }}:{{ .Values.executorImage.tag | default .Chart.AppVersion }}
{{- end -}}
{{- define "drover-operator.flowableImage" -}}
{{ .Values.flowableImage.repository }}:{{ .Values.flowableImage.tag | default .Chart.AppVersion }}
{{- end -}}

{{/*
What the JVM and the loader read from the environment, beside the operator's own settings: a
JAVA_TOOL_OPTIONS may hold only what an ExecutorCluster's jvmOptions may (the same two patterns
as ExecutorClusterSpec's JVM_OPTIONS_ALLOWED and JVM_XX_REFUSED; HelmChartTest holds them
equal), the other option variables and LD_* nothing at all.
*/}}
{{- define "drover-operator.jvmOptionsAllowed" -}}
^ *((-Xm[sxn][1-9][0-9]*[kKmMgGtT]?|-Xss[1-9][0-9]*[kKmMgGtT]?|-XX:[+-]?[A-Za-z][A-Za-z0-9_]*(=[A-Za-z0-9._:,/+-]*)?|-Xlog:[A-Za-z0-9_.:,=+*/-]*|-Xshare:(auto|off|on)|-D(user[.]timezone|file[.]encoding|java[.]net[.]preferIPv4Stack|java[.]net[.]preferIPv6Addresses|jdk[.]virtualThreadScheduler[.](parallelism|maxPoolSize))=[A-Za-z0-9._/+-]*)( +|$))*$
{{- end -}}
{{- define "drover-operator.jvmOptionsRefused" -}}
-XX:[+-]?(OnError|OnOutOfMemoryError|Flags|VMOptionsFile|StartAttachListener|EnableDynamicAgentLoading|CRaCCheckpointTo|CRaCRestoreFrom|AOT[A-Za-z]*|SharedArchiveFile|ArchiveClassesAtExit|SharedClassListFile|SharedArchiveConfigFile|ExtraSharedClassListFile|DumpLoadedClassList|[A-Za-z]*JVMCI[A-Za-z]*)
{{- end -}}
{{- /*
Settings that make the executor load code (handler jars, Flowable process models with their
classes) from a directory, or write a file where it names: the operator never sets them, and a
stolen token could point them at a Secret it mounted. Compared as the executor reads names
(case-insensitive, '.' and '-' as '_').
*/ -}}
{{- define "drover-operator.codeEnvRefused" -}}
['DROVER_HANDLERSDIR', 'DROVER_FLOWABLE_PROCESSESDIR', 'DROVER_TERMINATIONMESSAGEPATH']
{{- end -}}

{{- /*
Variables that change where or as which profile the executor reads its configuration, normalized
as it reads names: one of them (QUARKUS_CONFIG_LOCATIONS at a mounted file, QUARKUS_PROFILE with a
profile's properties) would set what codeEnvRefused refuses by another way. Names starting with '_'
(_PROD_X is the property %prod.x), SMALLRYE_CONFIG_* and QUARKUS_CONFIG_* (Quarkus's names for
SmallRye's settings: QUARKUS_CONFIG_LOG_VALUES logged every setting's value, the API tokens and the
database password among them) are refused beside these, as spec.env refuses them (ExtraEnvVar).
*/ -}}
{{- define "drover-operator.configEnvRefused" -}}
['QUARKUS_PROFILE', 'QUARKUS_CONFIG_LOCATIONS']
{{- end -}}

{{- define "drover-operator.jvmEnvRefused" -}}
['JDK_JAVA_OPTIONS', '_JAVA_OPTIONS', 'JDK_AOT_VM_OPTIONS']
{{- end -}}
