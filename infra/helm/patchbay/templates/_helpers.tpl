{{/* Chart name, overridable. */}}
{{- define "patchbay.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Prefix of every object name: the release name, with the chart name unless it already holds it. */}}
{{- define "patchbay.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Object name of one service: (dict "root" $ "name" "edge-router"). */}}
{{- define "patchbay.serviceFullname" -}}
{{- printf "%s-%s" (include "patchbay.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "patchbay.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels on every object of the release. */}}
{{- define "patchbay.labels" -}}
helm.sh/chart: {{ include "patchbay.chart" . }}
app.kubernetes.io/name: {{ include "patchbay.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: patchbay
{{- end -}}

{{/* Selector of one service's pods: (dict "root" $ "name" "edge-router"). */}}
{{- define "patchbay.selectorLabels" -}}
app.kubernetes.io/name: {{ include "patchbay.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* Labels of one service's objects: (dict "root" $ "name" "edge-router"). */}}
{{- define "patchbay.serviceLabels" -}}
{{ include "patchbay.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "patchbay.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "patchbay.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The Secret holding DATABASE_URL, REDIS_URL and PATCHBAY_SERVICE_TOKEN. */}}
{{- define "patchbay.secretName" -}}
{{- if .Values.secrets.existingSecret -}}
{{- .Values.secrets.existingSecret -}}
{{- else if .Values.secrets.create -}}
{{- printf "%s-secrets" (include "patchbay.fullname" .) -}}
{{- else -}}
{{- fail "set secrets.existingSecret to the Secret holding DATABASE_URL, REDIS_URL and PATCHBAY_SERVICE_TOKEN (or secrets.create=true with secrets.values for a throwaway cluster)" -}}
{{- end -}}
{{- end -}}

{{/*
One setting of a service: its own value when it sets the key, the default otherwise, as YAML.
(dict "root" $ "service" $svc "key" "resources")
*/}}
{{- define "patchbay.setting" -}}
{{- if hasKey .service .key -}}
{{- toYaml (get .service .key) -}}
{{- else -}}
{{- toYaml (get .root.Values.defaults .key) -}}
{{- end -}}
{{- end -}}

{{/* Image of one service: (dict "root" $ "name" "edge-router" "service" $svc). */}}
{{- define "patchbay.image" -}}
{{- $image := get .service "image" | default dict -}}
{{- $repository := get $image "repository" | default (printf "%s/%s" .root.Values.image.prefix .name) -}}
{{- $tag := get $image "tag" | default .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{- printf "%s:%s" $repository (toString $tag) -}}
{{- end -}}
