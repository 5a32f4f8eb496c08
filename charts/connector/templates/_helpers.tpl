{{/*
The chart name, or nameOverride.
*/}}
{{- define "connector.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The fully qualified name: fullnameOverride, or <release>-<chart> (just <release> when it already contains
the chart name). Truncated to 63 characters for DNS names; component suffixes are added by the callers, so
the base is cut at 50 to leave room for "-worker-metrics" and the like.
*/}}
{{- define "connector.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
chart name and version for the helm.sh/chart label.
*/}}
{{- define "connector.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels every object carries.
*/}}
{{- define "connector.labels" -}}
helm.sh/chart: {{ include "connector.chart" . }}
{{ include "connector.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: {{ include "connector.name" . }}
{{- end }}

{{/*
Selector labels shared by all components.
*/}}
{{- define "connector.selectorLabels" -}}
app.kubernetes.io/name: {{ include "connector.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Labels of one component. Call with (dict "ctx" $ "component" "api").
*/}}
{{- define "connector.componentLabels" -}}
{{ include "connector.labels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
Selector labels of one component. Call with (dict "ctx" $ "component" "api").
*/}}
{{- define "connector.componentSelectorLabels" -}}
{{ include "connector.selectorLabels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
Names of the objects.
*/}}
{{- define "connector.apiName" -}}
{{- printf "%s-api" (include "connector.fullname" .) }}
{{- end }}
{{- define "connector.workerName" -}}
{{- printf "%s-worker" (include "connector.fullname" .) }}
{{- end }}
{{- define "connector.redisName" -}}
{{- printf "%s-redis" (include "connector.fullname" .) }}
{{- end }}
{{- define "connector.configMapName" -}}
{{- printf "%s-config" (include "connector.fullname" .) }}
{{- end }}

{{/*
The Secret loaded with envFrom: secrets.existingSecret, or the one this chart creates.
*/}}
{{- define "connector.secretName" -}}
{{- if .Values.secrets.existingSecret }}
{{- .Values.secrets.existingSecret }}
{{- else }}
{{- printf "%s-secret" (include "connector.fullname" .) }}
{{- end }}
{{- end }}

{{/*
The service account name.
*/}}
{{- define "connector.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "connector.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
An image reference from {repository, tag} with the chart's appVersion as the default tag.
Call with (dict "image" .Values.api.image "ctx" $).
*/}}
{{- define "connector.image" -}}
{{- printf "%s:%s" .image.repository (default .ctx.Chart.AppVersion .image.tag | toString) }}
{{- end }}

{{/*
PUBLIC_URL: config.publicUrl, else https://<ingress.host> when the ingress is enabled, else empty.
*/}}
{{- define "connector.publicUrl" -}}
{{- if .Values.config.publicUrl }}
{{- .Values.config.publicUrl }}
{{- else if and .Values.ingress.enabled .Values.ingress.host }}
{{- printf "https://%s" .Values.ingress.host }}
{{- end }}
{{- end }}

{{/*
TRUST_PROXY: config.trustProxy, else 1 behind the ingress, else 0.
*/}}
{{- define "connector.trustProxy" -}}
{{- if kindIs "invalid" .Values.config.trustProxy }}
{{- ternary 1 0 .Values.ingress.enabled }}
{{- else }}
{{- .Values.config.trustProxy }}
{{- end }}
{{- end }}

{{/*
Whether the chart can tell that a Redis is configured, in any topology (false does not prove there is none:
an existingSecret may carry REDIS_URL).
*/}}
{{- define "connector.redisConfigured" -}}
{{- $redis := .Values.redis -}}
{{- if or $redis.dev.enabled $redis.existingSecret.name $redis.url $redis.sentinel.hosts $redis.cluster.nodes }}true{{ end }}
{{- end }}

{{/*
Where the Redis CA bundle is mounted, and the file REDIS_TLS_CA_FILE names.
*/}}
{{- define "connector.redisCaDir" -}}
/etc/connector/redis-ca
{{- end }}
{{- define "connector.redisCaFile" -}}
{{- printf "%s/ca.crt" (include "connector.redisCaDir" .) }}
{{- end }}

{{/*
terminationGracePeriodSeconds: the drain budget plus a margin.
*/}}
{{- define "connector.terminationGracePeriodSeconds" -}}
{{- add (int .Values.shutdown.drainSeconds) (int .Values.shutdown.extraGraceSeconds) }}
{{- end }}

{{/*
The API's terminationGracePeriodSeconds: it first serves on for the shutdown delay, then drains.
*/}}
{{- define "connector.apiTerminationGracePeriodSeconds" -}}
{{- add (int .Values.shutdown.delaySeconds) (include "connector.terminationGracePeriodSeconds" . | int) }}
{{- end }}

{{/*
Pod annotations: a checksum of the ConfigMap and of the chart's Secret, so that a configuration change
rolls the pods, plus Prometheus discovery annotations. Call with
(dict "ctx" $ "port" <metrics port> "extra" <podAnnotations>).
*/}}
{{- define "connector.podAnnotations" -}}
checksum/config: {{ include (print .ctx.Template.BasePath "/configmap.yaml") .ctx | sha256sum }}
checksum/secret: {{ include (print .ctx.Template.BasePath "/secret.yaml") .ctx | sha256sum }}
{{- if .ctx.Values.metrics.podAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .port | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- with .extra }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
Configuration of both containers: the ConfigMap, then the Secret (optional, so that a missing Secret
or key makes the process exit naming the variable, and the pod crash-loop, instead of
CreateContainerConfigError). For duplicate keys the Secret wins over the ConfigMap. Call with $.
*/}}
{{- define "connector.envFrom" -}}
envFrom:
  - configMapRef:
      name: {{ include "connector.configMapName" . }}
  - secretRef:
      name: {{ include "connector.secretName" . }}
      optional: true
{{- end }}

{{/*
The workload's own env entries (they win over envFrom): its ports, the Redis connection (the same for api
and worker), WEBHOOK_SECRET (and, with a webhook URL, WEBHOOK_SECRET_PREVIOUS) from its own Secret when one
is named, the tracing settings, then the workload's extraEnv. Call with
(dict "ctx" $ "env" <dict NAME: value> "extraEnv" <list> "serviceName" <OTEL_SERVICE_NAME>).
*/}}
{{- define "connector.env" -}}
{{- $ctx := .ctx -}}
{{- include "connector.refuseHeaderValues" .extraEnv }}
env:
{{- range $name, $value := .env }}
  - name: {{ $name }}
    value: {{ $value | toString | quote }}
{{- end }}
{{- with include "connector.redisEnv" .ctx | trim }}
{{ . | indent 2 }}
{{- end }}
{{- with $ctx.Values.webhooks.existingSecret.name }}
  - name: WEBHOOK_SECRET
    valueFrom:
      secretKeyRef:
        name: {{ . }}
        key: {{ $ctx.Values.webhooks.existingSecret.key }}
{{- if $ctx.Values.webhooks.url }}
  {{- /* Optional: the key exists only during a rotation; adding or deleting it plus a restart starts or ends one. */}}
  - name: WEBHOOK_SECRET_PREVIOUS
    valueFrom:
      secretKeyRef:
        name: {{ . }}
        key: {{ $ctx.Values.webhooks.existingSecret.previousKey }}
        optional: true
{{- end }}
{{- end }}
{{- with include "connector.tracingEnv" (dict "ctx" $ctx "serviceName" .serviceName) | trim }}
{{ . | indent 2 }}
{{- end }}
{{- with .extraEnv }}
{{ toYaml . | indent 2 }}
{{- end }}
{{- end }}

{{/*
Refuses an extraEnv entry that would put OTLP headers (credentials) into the pod spec as a plain value; the
schema refuses them too, this names the way out. Call with the extraEnv list.
*/}}
{{- define "connector.refuseHeaderValues" -}}
{{- range . }}
{{- if and (has .name (list "OTEL_EXPORTER_OTLP_HEADERS" "OTEL_EXPORTER_OTLP_TRACES_HEADERS")) (hasKey . "value") }}
{{- fail (printf "%s is a credential: set tracing.headers.existingSecret instead of a plain extraEnv value" .name) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
OpenTelemetry settings of one workload, nothing at all unless tracing.enabled: the standard OTEL_* variables
the SDK reads. Headers only from a Secret (secretKeyRef), never a value. The pod's name reaches
OTEL_RESOURCE_ATTRIBUTES through the downward API and $(…) expansion, so spans say which pod ran them.
Call with (dict "ctx" $ "serviceName" <name>).
*/}}
{{- define "connector.tracingEnv" -}}
{{- $tracing := .ctx.Values.tracing -}}
{{- if $tracing.enabled }}
- name: OTEL_SERVICE_NAME
  value: {{ .serviceName | quote }}
{{- with $tracing.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- with $tracing.tracesEndpoint }}
- name: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  value: {{ . | quote }}
{{- end }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ $tracing.protocol | quote }}
{{- with $tracing.headers.existingSecret.name }}
- name: OTEL_EXPORTER_OTLP_HEADERS
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $tracing.headers.existingSecret.key }}
{{- end }}
- name: OTEL_TRACES_SAMPLER
  value: {{ $tracing.sampler | quote }}
{{- if hasSuffix "traceidratio" $tracing.sampler }}
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ $tracing.samplerArg | toString | quote }}
{{- end }}
- name: OTEL_K8S_POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ include "connector.resourceAttributes" .ctx | quote }}
{{- end }}
{{- end }}

{{/*
OTEL_RESOURCE_ATTRIBUTES: the namespace and the pod, then tracing.resourceAttributes in key order
(values.schema.json keeps commas, equals signs, spaces and percent signs out, so nothing needs escaping).
*/}}
{{- define "connector.resourceAttributes" -}}
{{- $pairs := list (printf "k8s.namespace.name=%s" .Release.Namespace) "k8s.pod.name=$(OTEL_K8S_POD_NAME)" }}
{{- $attributes := .Values.tracing.resourceAttributes }}
{{- range $key := keys $attributes | sortAlpha }}
{{- $pairs = append $pairs (printf "%s=%v" $key (get $attributes $key)) }}
{{- end }}
{{- join "," $pairs }}
{{- end }}

{{/*
The Redis connection as env entries, one topology at most (values.schema.json refuses two):
- one node: REDIS_URL from a dedicated Secret key, or the dev Redis (a REDIS_URL from redis.url reaches the
  pods through the chart's Secret);
- Sentinel: REDIS_SENTINELS and REDIS_SENTINEL_NAME; Cluster: REDIS_CLUSTER_NODES;
- REDIS_TLS, and REDIS_TLS_CA_FILE naming the bundle mounted from its Secret (connector.volumes);
- REDIS_USERNAME, REDIS_PASSWORD, REDIS_SENTINEL_PASSWORD as secretKeyRefs, never values.
No secret reference here is optional: a Redis URL or credential that the values name but the cluster lacks
must stop the pod (CreateContainerConfigError) rather than start it on the in-memory backend or without the
credential. Call with $.
*/}}
{{- define "connector.redisEnv" -}}
{{- $redis := .Values.redis -}}
{{- if $redis.existingSecret.name }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ $redis.existingSecret.name }}
      key: {{ $redis.existingSecret.key }}
{{- else if $redis.dev.enabled }}
- name: REDIS_URL
  value: {{ printf "redis://%s:6379" (include "connector.redisName" .) | quote }}
{{- end }}
{{- with $redis.sentinel.hosts }}
- name: REDIS_SENTINELS
  value: {{ join "," . | quote }}
- name: REDIS_SENTINEL_NAME
  value: {{ $redis.sentinel.name | quote }}
{{- end }}
{{- with $redis.cluster.nodes }}
- name: REDIS_CLUSTER_NODES
  value: {{ join "," . | quote }}
{{- end }}
{{- if $redis.tls.enabled }}
- name: REDIS_TLS
  value: "true"
{{- end }}
{{- if $redis.tls.caSecret.name }}
- name: REDIS_TLS_CA_FILE
  value: {{ include "connector.redisCaFile" . | quote }}
{{- end }}
{{- with $redis.auth.existingSecret }}
{{- $secret := . }}
{{- range $name, $key := dict "REDIS_USERNAME" $redis.auth.usernameKey "REDIS_PASSWORD" $redis.auth.passwordKey "REDIS_SENTINEL_PASSWORD" $redis.auth.sentinelPasswordKey }}
{{- if $key }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $key }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The /tmp volume mount and volume: the only writable path.
*/}}
{{- define "connector.tmpVolumeMount" -}}
volumeMounts:
  - name: tmp
    mountPath: /tmp
{{- end }}
{{- define "connector.tmpVolume" -}}
volumes:
  - name: tmp
    emptyDir:
      sizeLimit: {{ .Values.tmpSizeLimit }}
{{- end }}

{{/*
The volumes of the api and worker pods: /tmp, and the Redis CA bundle when redis.tls.caSecret.name is set
(read-only, only the one key, as ca.crt). The directory is mounted rather than the file (subPath), so that
a rotated bundle reaches running pods. Call with $.
*/}}
{{- define "connector.volumeMounts" -}}
{{ include "connector.tmpVolumeMount" . }}
{{- if .Values.redis.tls.caSecret.name }}
  - name: redis-tls-ca
    mountPath: {{ include "connector.redisCaDir" . }}
    readOnly: true
{{- end }}
{{- end }}
{{- define "connector.volumes" -}}
{{ include "connector.tmpVolume" . }}
{{- with .Values.redis.tls.caSecret.name }}
  - name: redis-tls-ca
    secret:
      secretName: {{ . }}
      # 0444: a CA bundle is public; readable whatever uid and fsGroup the pod runs with
      defaultMode: 292
      items:
        - key: {{ $.Values.redis.tls.caSecret.key }}
          path: ca.crt
{{- end }}
{{- end }}
