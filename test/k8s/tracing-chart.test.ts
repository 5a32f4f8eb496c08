import { expect } from 'chai';
import { helm, type K8sObject, lint, render, templateRaw } from '../support/helm';
import { type Container, mainContainer, mustFind, ofKind, resolveEnv, validateObject } from '../support/manifests';

const TRACING_VALUES = 'charts/connector/ci/tracing-values.yaml';
const HEADERS = 'authorization=Bearer otlp-placeholder-token';
/** The Secrets ci/tracing-values.yaml names, as the cluster would hold them. */
const EXTERNAL = {
  'connector-credentials': { CONNECTOR_SECRET: 'c'.repeat(40), LINK_SECRET: 'l'.repeat(32) },
  'connector-redis': { REDIS_URL: 'redis://redis:6379' },
  'connector-otlp': { OTEL_EXPORTER_OTLP_HEADERS: HEADERS },
};
const ON = ['tracing.enabled=true', 'tracing.endpoint=http://otel-collector.observability:4318'];

function containers(objects: K8sObject[]): Array<[string, Container]> {
  return ['api', 'worker'].map((component) => [component, mainContainer(mustFind(objects, 'Deployment', component))]);
}

function otelNames(container: Container): string[] {
  return (container.env ?? []).map((entry) => entry.name).filter((name) => name.startsWith('OTEL_'));
}

describe('helm chart: tracing values (tracing.*)', function () {
  before(function () {
    this.timeout(180_000);
    helm();
  });

  it('renders no OTEL_* variable anywhere with the default values', function () {
    this.timeout(60_000);
    const run = templateRaw();
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout).to.include('kind: Deployment');
    expect(run.stdout).to.not.include('OTEL_');
  });

  it('renders nothing for tracing while tracing.enabled is false, even with an endpoint and a header Secret set', function () {
    this.timeout(60_000);
    const run = templateRaw({
      set: ['tracing.endpoint=http://otel:4318', 'tracing.headers.existingSecret.name=otlp', 'tracing.resourceAttributes.team=core'],
    });
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout).to.not.include('OTEL_');
  });

  describe('with ci/tracing-values.yaml', function () {
    let objects: K8sObject[];
    before(function () {
      this.timeout(60_000);
      objects = render({ valuesFiles: [TRACING_VALUES], namespace: 'shop' });
    });

    it('passes helm lint --strict and Kubernetes schema validation', function () {
      this.timeout(60_000);
      const run = lint({ valuesFiles: [TRACING_VALUES] });
      expect(run.status, run.stdout + run.stderr).to.equal(0);
      for (const obj of objects) validateObject(obj);
    });

    it('gives the API and the worker the OTLP endpoint, protocol, sampler and their own service names', function () {
      for (const [component, container] of containers(objects)) {
        const env = resolveEnv(container, objects, EXTERNAL);
        expect(env, component).to.include({
          OTEL_SERVICE_NAME: `connector-${component}`,
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability:4318',
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
          OTEL_TRACES_SAMPLER_ARG: '1',
          OTEL_EXPORTER_OTLP_HEADERS: HEADERS,
        });
        expect(env, component).to.not.have.property('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
      }
    });

    it('reads OTEL_EXPORTER_OTLP_HEADERS from the named Secret key, not optional, and never as a value', function () {
      for (const [component, container] of containers(objects)) {
        const entry = container.env?.find((e) => e.name === 'OTEL_EXPORTER_OTLP_HEADERS');
        expect(entry, component).to.deep.equal({
          name: 'OTEL_EXPORTER_OTLP_HEADERS',
          valueFrom: { secretKeyRef: { name: 'connector-otlp', key: 'OTEL_EXPORTER_OTLP_HEADERS' } },
        });
      }
      const { 'connector-otlp': _, ...withoutHeaderSecret } = EXTERNAL;
      const [, api] = containers(objects)[0]!;
      expect(() => resolveEnv(api, objects, withoutHeaderSecret)).to.throw(/connector-otlp/);
    });

    it('puts the namespace, the pod name (downward API, defined first) and the configured attributes into OTEL_RESOURCE_ATTRIBUTES', function () {
      for (const [component, container] of containers(objects)) {
        const names = (container.env ?? []).map((e) => e.name);
        const pod = container.env!.find((e) => e.name === 'OTEL_K8S_POD_NAME') as { valueFrom?: { fieldRef?: { fieldPath: string } } };
        expect(pod.valueFrom?.fieldRef?.fieldPath, component).to.equal('metadata.name');
        // Kubernetes expands $(NAME) only for variables defined earlier in the list.
        expect(names.indexOf('OTEL_K8S_POD_NAME'), component).to.be.lessThan(names.indexOf('OTEL_RESOURCE_ATTRIBUTES'));
        const attributes = container.env!.find((e) => e.name === 'OTEL_RESOURCE_ATTRIBUTES')!.value!;
        expect(attributes.split(','), component).to.deep.equal([
          'k8s.namespace.name=shop',
          'k8s.pod.name=$(OTEL_K8S_POD_NAME)',
          'deployment.environment.name=production',
          'service.version=1.2.3',
        ]);
      }
    });

    it('keeps every OTEL_* setting out of the shared ConfigMap', function () {
      for (const configMap of ofKind(objects, 'ConfigMap')) expect(JSON.stringify(configMap.data ?? {})).to.not.include('OTEL_');
    });
  });

  it('sets only OTEL_EXPORTER_OTLP_TRACES_ENDPOINT when tracesEndpoint alone is given', function () {
    this.timeout(60_000);
    const objects = render({ set: ['tracing.enabled=true', 'tracing.tracesEndpoint=https://traces.example.com/v1/traces'] });
    for (const [component, container] of containers(objects)) {
      const env = resolveEnv(container, objects);
      expect(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, component).to.equal('https://traces.example.com/v1/traces');
      expect(env, component).to.not.have.property('OTEL_EXPORTER_OTLP_ENDPOINT');
      expect(env, component).to.not.have.property('OTEL_EXPORTER_OTLP_HEADERS');
      expect(env, component).to.include({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_TRACES_SAMPLER_ARG: '0.1' });
    }
  });

  it('takes a decimal ratio from --set, other service names, and leaves the ratio out for a sampler that takes none', function () {
    this.timeout(60_000);
    const ratio = render({
      set: [...ON, 'tracing.samplerArg=0.25', 'tracing.serviceNames.api=shop-api', 'tracing.serviceNames.worker=shop-jobs'],
    });
    const [[, api], [, worker]] = containers(ratio) as [[string, Container], [string, Container]];
    expect(resolveEnv(api, ratio)).to.include({ OTEL_SERVICE_NAME: 'shop-api', OTEL_TRACES_SAMPLER_ARG: '0.25' });
    expect(resolveEnv(worker, ratio)).to.include({ OTEL_SERVICE_NAME: 'shop-jobs', OTEL_TRACES_SAMPLER_ARG: '0.25' });
    const always = render({ set: [...ON, 'tracing.sampler=parentbased_always_on'] });
    for (const [component, container] of containers(always)) {
      expect(otelNames(container), component).to.include('OTEL_TRACES_SAMPLER').and.not.include('OTEL_TRACES_SAMPLER_ARG');
    }
  });

  const refused: Array<[string, string[]]> = [
    ['tracing on without any endpoint', ['tracing.enabled=true']],
    ['a protocol other than http/protobuf or http/json (grpc)', [...ON, 'tracing.protocol=grpc']],
    ['a sampler ratio above 1', [...ON, 'tracing.samplerArg=1.5']],
    ['a negative sampler ratio', [...ON, 'tracing.samplerArg=-0.1']],
    ['a sampler ratio that is not a number', [...ON, 'tracing.samplerArg=half']],
    ['an integer sampler ratio above 1', [...ON, 'tracing.samplerArg=2']],
    ['an unknown sampler', [...ON, 'tracing.sampler=sometimes']],
    ['an endpoint that is not an http(s) URL', ['tracing.enabled=true', 'tracing.endpoint=otel-collector:4318']],
    ['headers given as a plain value under tracing', [...ON, 'tracing.headers.value=authorization=Bearer x']],
    ['OTLP headers as a plain value in config.extraEnv (the ConfigMap)', ['config.extraEnv.OTEL_EXPORTER_OTLP_HEADERS=x']],
    ['OTLP headers as a plain value in api.extraEnv', ['api.extraEnv[0].name=OTEL_EXPORTER_OTLP_HEADERS', 'api.extraEnv[0].value=x']],
    [
      'OTLP trace headers as a plain value in worker.extraEnv',
      ['worker.extraEnv[0].name=OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'worker.extraEnv[0].value=x'],
    ],
    ['service.name among the resource attributes (serviceNames sets it)', [...ON, 'tracing.resourceAttributes.service\\.name=x']],
    ['a resource attribute value with a space', [...ON, 'tracing.resourceAttributes.team=core team']],
    ['an unknown tracing setting', [...ON, 'tracing.exporter=jaeger']],
  ];
  for (const [what, set] of refused) {
    it(`makes helm template fail for ${what}`, function () {
      this.timeout(60_000);
      const run = templateRaw({ set });
      expect(run.status).to.not.equal(0);
      expect(run.stderr).to.match(/schema/i);
    });
  }

  it('accepts OTLP headers in api.extraEnv from a secretKeyRef (the schema refuses only plain values)', function () {
    this.timeout(60_000);
    const objects = render({
      set: [
        'api.extraEnv[0].name=OTEL_EXPORTER_OTLP_HEADERS',
        'api.extraEnv[0].valueFrom.secretKeyRef.name=otlp',
        'api.extraEnv[0].valueFrom.secretKeyRef.key=headers',
      ],
    });
    const entry = mainContainer(mustFind(objects, 'Deployment', 'api')).env!.find((e) => e.name === 'OTEL_EXPORTER_OTLP_HEADERS');
    expect(entry?.valueFrom?.secretKeyRef).to.deep.equal({ name: 'otlp', key: 'headers' });
  });
});
