{{- define "drover-operator.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
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

{{- define "drover-operator.serviceAccountName" -}}
{{- default (include "drover-operator.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{/* Rules on the namespaced objects the operator reconciles (ClusterRole or per-namespace Role). */}}
{{- define "drover-operator.namespacedRules" -}}
- apiGroups: [drover.io]
  resources: [executorclusters]
  verbs: [get, list, watch, patch, update]
- apiGroups: [drover.io]
  resources: [executorclusters/status]
  verbs: [get, patch, update]
# Owner references with blockOwnerDeletion need update on the owner's finalizers.
- apiGroups: [drover.io]
  resources: [executorclusters/finalizers]
  verbs: [update]
- apiGroups: [apps]
  resources: [statefulsets]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [""]
  resources: [configmaps, services]
  verbs: [get, list, watch, create, update, patch, delete]
# Read only: the operator checks the referenced keys exist and fingerprints them to roll
# executors when a password rotates. It never writes Secrets.
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, list, watch]
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [keda.sh]
  resources: [scaledobjects, triggerauthentications]
  verbs: [get, list, watch, create, update, patch, delete]
# Read only: whether KEDA's HPA still scales a StatefulSet (the operator never writes replicas then).
- apiGroups: [autoscaling]
  resources: [horizontalpodautoscalers]
  verbs: [get, list]
{{- end -}}
