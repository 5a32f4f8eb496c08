import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Pod, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import type { K8sObject } from './helm';

type Validator = (obj: K8sObject) => void;

/** Kubernetes schema validation (kubernetes-models) for each kind the chart may render. */
const MODELS: Record<string, Validator> = {
  'v1/ConfigMap': (o) => new ConfigMap(o as never).validate(),
  'v1/Pod': (o) => new Pod(o as never).validate(),
  'v1/Secret': (o) => new Secret(o as never).validate(),
  'v1/Service': (o) => new Service(o as never).validate(),
  'v1/ServiceAccount': (o) => new ServiceAccount(o as never).validate(),
  'apps/v1/Deployment': (o) => new Deployment(o as never).validate(),
  'autoscaling/v2/HorizontalPodAutoscaler': (o) => new HorizontalPodAutoscaler(o as never).validate(),
  'policy/v1/PodDisruptionBudget': (o) => new PodDisruptionBudget(o as never).validate(),
  'networking.k8s.io/v1/Ingress': (o) => new Ingress(o as never).validate(),
  'networking.k8s.io/v1/NetworkPolicy': (o) => new NetworkPolicy(o as never).validate(),
  'monitoring.coreos.com/v1/ServiceMonitor': validateServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': validatePrometheusRule,
};

function fail(obj: K8sObject, message: string): never {
  throw new Error(`${obj.kind}/${obj.metadata?.name}: ${message}`);
}

/** Structural checks of the Prometheus Operator CRD (no schema for it in kubernetes-models). */
function validateServiceMonitor(obj: K8sObject): void {
  const spec = obj.spec;
  if (!spec || typeof spec !== 'object') fail(obj, 'spec missing');
  if (!spec.selector || typeof spec.selector !== 'object') fail(obj, 'spec.selector missing');
  if (!Array.isArray(spec.endpoints) || spec.endpoints.length === 0) fail(obj, 'spec.endpoints must be a non-empty list');
  for (const endpoint of spec.endpoints) {
    if (typeof endpoint.port !== 'string' || endpoint.port === '') fail(obj, 'every endpoint needs a named port');
    if (endpoint.path !== undefined && !String(endpoint.path).startsWith('/')) fail(obj, 'endpoint path must be absolute');
    for (const key of ['interval', 'scrapeTimeout']) {
      if (endpoint[key] !== undefined && !/^([0-9]+(ms|s|m|h))+$/.test(String(endpoint[key]))) fail(obj, `bad ${key}`);
    }
  }
}

function validatePrometheusRule(obj: K8sObject): void {
  const groups = obj.spec?.groups;
  if (!Array.isArray(groups) || groups.length === 0) fail(obj, 'spec.groups must be a non-empty list');
  for (const group of groups) {
    if (typeof group.name !== 'string' || group.name === '') fail(obj, 'a group needs a name');
    if (!Array.isArray(group.rules) || group.rules.length === 0) fail(obj, `group ${group.name} has no rules`);
    for (const rule of group.rules) {
      if (typeof rule.expr !== 'string' || rule.expr.trim() === '') fail(obj, 'a rule needs an expr');
      if (typeof rule.alert !== 'string' && typeof rule.record !== 'string') fail(obj, 'a rule needs alert or record');
      if (rule.for !== undefined && !/^([0-9]+(ms|s|m|h|d|w|y))+$/.test(rule.for)) fail(obj, `bad for: ${rule.for}`);
    }
  }
}

/** Validates one rendered object; throws for an invalid object or a kind the chart is not known to render. */
export function validateObject(obj: K8sObject): void {
  const validator = MODELS[`${obj.apiVersion}/${obj.kind}`];
  if (!validator) throw new Error(`no validator for ${obj.apiVersion}/${obj.kind} (${obj.metadata?.name})`);
  if (!obj.metadata?.name) fail(obj, 'metadata.name missing');
  validator(obj);
}

export function ofKind(objects: readonly K8sObject[], kind: string): K8sObject[] {
  return objects.filter((o) => o.kind === kind);
}

export function byComponent(objects: readonly K8sObject[], kind: string, component: string): K8sObject | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.labels?.['app.kubernetes.io/component'] === component);
}

export function mustFind(objects: readonly K8sObject[], kind: string, component: string): K8sObject {
  const found = byComponent(objects, kind, component);
  if (!found)
    throw new Error(`no ${kind} with component ${component} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
}

export function named(objects: readonly K8sObject[], kind: string, name: string): K8sObject | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name === name);
}

export interface Container {
  name: string;
  image: string;
  ports?: Array<{ name?: string; containerPort: number }>;
  envFrom?: Array<{ configMapRef?: { name: string; optional?: boolean }; secretRef?: { name: string; optional?: boolean } }>;
  env?: Array<{
    name: string;
    value?: string;
    valueFrom?: {
      secretKeyRef?: { name: string; key: string; optional?: boolean };
      configMapKeyRef?: { name: string; key: string; optional?: boolean };
    };
  }>;
  [key: string]: unknown;
}

export function mainContainer(deployment: K8sObject): Container {
  const containers = deployment.spec?.template?.spec?.containers as Container[] | undefined;
  if (containers?.length !== 1) throw new Error(`${deployment.metadata.name}: expected exactly one container`);
  return containers[0]!;
}

/** The containerPort behind a named port of a container. */
export function containerPort(container: Container, name: string): number {
  const port = container.ports?.find((p) => p.name === name);
  if (!port) throw new Error(`container ${container.name} has no port named ${name}`);
  return port.containerPort;
}

function secretData(secret: K8sObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries((secret.data ?? {}) as Record<string, string>)) {
    out[key] = Buffer.from(value, 'base64').toString('utf8');
  }
  for (const [key, value] of Object.entries((secret.stringData ?? {}) as Record<string, string>)) out[key] = value;
  return out;
}

/**
 * The environment the kubelet would give the container, from the rendered objects: envFrom sources in
 * order (a later source wins on a duplicate key), then `env` entries (which win over envFrom). A Secret or
 * ConfigMap that is not among the rendered objects (an existing one) counts as absent: allowed when the
 * reference is optional, an error otherwise (CreateContainerConfigError in a cluster).
 * `externalSecrets` stands in for Secrets that exist in the cluster but not in the chart.
 */
export function resolveEnv(
  container: Container,
  objects: readonly K8sObject[],
  externalSecrets: Record<string, Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  const secretByName = (name: string): Record<string, string> | undefined => {
    const rendered = named(objects, 'Secret', name);
    return rendered ? secretData(rendered) : externalSecrets[name];
  };
  const configMapByName = (name: string): Record<string, string> | undefined =>
    named(objects, 'ConfigMap', name)?.data as Record<string, string> | undefined;

  for (const source of container.envFrom ?? []) {
    const ref = source.configMapRef ?? source.secretRef;
    if (!ref) throw new Error(`container ${container.name}: unsupported envFrom entry`);
    const data = source.configMapRef ? configMapByName(ref.name) : secretByName(ref.name);
    if (!data) {
      if (ref.optional === true) continue;
      throw new Error(`container ${container.name}: ${ref.name} is missing and not optional (CreateContainerConfigError)`);
    }
    Object.assign(env, data);
  }
  for (const entry of container.env ?? []) {
    if (entry.value !== undefined) {
      env[entry.name] = entry.value;
      continue;
    }
    const secretRef = entry.valueFrom?.secretKeyRef;
    const configRef = entry.valueFrom?.configMapKeyRef;
    const ref = secretRef ?? configRef;
    if (!ref) {
      env[entry.name] = '';
      continue;
    }
    const data = secretRef ? secretByName(ref.name) : configMapByName(ref.name);
    const value = data?.[ref.key];
    if (value === undefined) {
      if (ref.optional === true) continue;
      throw new Error(`container ${container.name}: ${entry.name} refers to a missing ${ref.name}/${ref.key} (CreateContainerConfigError)`);
    }
    env[entry.name] = value;
  }
  return env;
}
