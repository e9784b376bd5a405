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

{{/*
Every Deployment the release runs, as YAML: a map from component name to its settings. An enabled app
is one component (kind "app", with a Service); each enabled entry under its `workers` is another
(kind "worker", named "<app>-<worker>"), which runs the app's image with its own command, inherits the
app's secrets, image and env (its own env on top), and takes its settings from `defaults` unless it
sets them. A worker's `appEnv` is added to its app's env (for example to stop the app running the
consumers the worker now runs).
*/}}
{{- define "patchbay.workloads" -}}
{{- $out := dict -}}
{{- range $app, $svc := .Values.services -}}
{{- if get $svc "enabled" -}}
{{- $appEnv := deepCopy (get $svc "env" | default dict) -}}
{{- range $worker, $w := (get $svc "workers" | default dict) -}}
{{- if get $w "enabled" -}}
{{- $inherited := deepCopy (pick $svc "secretEnv" "existingSecret" "image" "vendorKeys" "platformOAuth" "extraEnv") -}}
{{- $env := mergeOverwrite (deepCopy (get $svc "env" | default dict)) (get $w "env" | default dict) -}}
{{- $own := omit $w "env" "appEnv" "enabled" -}}
{{- $_ := set $out (printf "%s-%s" $app $worker) (mergeOverwrite $inherited (deepCopy $own) (dict "env" $env "app" $app "kind" "worker")) -}}
{{- $appEnv = mergeOverwrite $appEnv (get $w "appEnv" | default dict) -}}
{{- end -}}
{{- end -}}
{{- /* deepCopy first: mergeOverwrite merges nested maps in place, and .Values must stay as given. */ -}}
{{- $_ := set $out $app (mergeOverwrite (omit (deepCopy $svc) "workers") (dict "env" $appEnv "app" $app "kind" "app")) -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* The Secret one workload reads its secretEnv from: its own existingSecret, else the shared one. */}}
{{- define "patchbay.workloadSecret" -}}
{{- if get .service "existingSecret" -}}
{{- get .service "existingSecret" -}}
{{- else -}}
{{- include "patchbay.secretName" .root -}}
{{- end -}}
{{- end -}}

{{/* Image of one workload: its app's image. (dict "root" $ "service" $w) */}}
{{- define "patchbay.workloadImage" -}}
{{- include "patchbay.image" (dict "root" .root "name" (get .service "app") "service" .service) -}}
{{- end -}}
