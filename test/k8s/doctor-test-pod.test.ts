import { type ChildProcess, spawn } from 'node:child_process';
import { expect } from 'chai';
import type { CheckResult } from '../../doctor/check-result';
import { type DoctorRun, failures } from '../support/doctor-cli';
import { helm, type K8sObject, type RenderOptions, render, repoRoot } from '../support/helm';
import { type Container, mainContainer, mustFind, named, ofKind, resolveEnv, validateObject } from '../support/manifests';
import { childEnv } from '../testkit/child-env';
import { freePort, freePortBeside } from '../testkit/free-port';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

const ALL_FEATURES = 'charts/connector/ci/all-features-values.yaml';
const EMBEDDED = 'charts/connector/ci/embedded-api-only-values.yaml';
const EXISTING_SECRET = 'charts/connector/ci/existing-secret-values.yaml';

function testPods(objects: K8sObject[]): K8sObject[] {
  return ofKind(objects, 'Pod').filter((pod) => pod.metadata.annotations?.['helm.sh/hook'] === 'test');
}

function doctorPod(objects: K8sObject[]): K8sObject {
  const pods = testPods(objects);
  expect(pods, 'exactly one helm test pod').to.have.length(1);
  return pods[0]!;
}

function podContainer(pod: K8sObject): Container & { command: string[]; args: string[] } {
  expect(pod.spec.containers).to.have.length(1);
  return pod.spec.containers[0];
}

const running: ChildProcess[] = [];

function start(command: string[], env: Record<string, string>): { child: ChildProcess; output(): string; exited: Promise<number | null> } {
  expect(command[0]).to.equal('node');
  const child = spawn(process.execPath, command.slice(1), {
    cwd: repoRoot,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/**
 * The release without a cluster: the API Deployment's process with its rendered environment (ports remapped
 * to free local ones), then the test pod's exact command and environment, with the in-cluster Service URL
 * pointed at that local port.
 */
async function runTestPod(objects: K8sObject[], redisUrl?: string): Promise<DoctorRun> {
  const api = mainContainer(mustFind(objects, 'Deployment', 'api'));
  const apiEnv = resolveEnv(api, objects);
  const port = await freePort();
  apiEnv.PORT = String(port);
  apiEnv.METRICS_PORT = String(await freePortBeside(port));
  if (redisUrl) apiEnv.REDIS_URL = redisUrl;
  const apiProcess = start(['node', 'dist/api/main.js'], { NODE_ENV: 'production', ...apiEnv });
  const ready = waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200, {
    timeoutMs: 30_000,
    what: 'the API to be ready',
  });
  await Promise.race([
    ready,
    apiProcess.exited.then((code) => {
      throw new Error(`api exited (${code}): ${apiProcess.output()}`);
    }),
  ]);

  const pod = doctorPod(objects);
  const container = podContainer(pod);
  const service = mustFind(objects, 'Service', 'api');
  const serviceUrl = `http://${service.metadata.name}.${service.metadata.namespace}.svc:${service.spec.ports.find((p: any) => p.name === 'http').port}`;
  expect(container.args[0]!.startsWith(serviceUrl), `${container.args[0]} is the API Service`).to.equal(true);
  const args = [container.args[0]!.replace(serviceUrl, `http://127.0.0.1:${port}`), ...container.args.slice(1), '--json'];
  const doctor = start([...container.command, ...args], resolveEnv(container, objects));
  const code = await doctor.exited;
  const text = doctor.output();
  const results = (JSON.parse(text) as { results: CheckResult[] }).results;
  return {
    code: code ?? -1,
    stdout: text,
    stderr: '',
    results,
    rule: (id) => {
      const found = results.find((r) => r.id === id);
      expect(found, `${id} in ${text}`).to.not.equal(undefined);
      return found!;
    },
  };
}

describe('helm test: the connector doctor pod (templates/tests/doctor-pod.yaml)', function () {
  this.timeout(60_000);
  before(function () {
    this.timeout(180_000);
    helm();
  });

  for (const [label, options] of [
    ['the default values', {}],
    ['ci/all-features-values.yaml', { valuesFiles: [ALL_FEATURES] }],
    ['ci/embedded-api-only-values.yaml', { valuesFiles: [EMBEDDED] }],
    ['ci/existing-secret-values.yaml', { valuesFiles: [EXISTING_SECRET] }],
  ] as Array<[string, RenderOptions]>) {
    it(`with ${label}: one test-hook Pod, valid (kubernetes-models), locked down, running the doctor from the API image against the API Service`, function () {
      const objects = render(options);
      const pod = doctorPod(objects);
      expect(() => validateObject(pod)).not.to.throw();
      expect(pod.metadata.annotations['helm.sh/hook-delete-policy']).to.equal('before-hook-creation');
      expect(pod.spec.restartPolicy).to.equal('Never');
      expect(pod.spec.automountServiceAccountToken).to.equal(false);
      expect(pod.spec.securityContext).to.include({ runAsNonRoot: true });
      expect(pod.spec.securityContext.seccompProfile).to.deep.equal({ type: 'RuntimeDefault' });
      const container = podContainer(pod);
      expect(container.securityContext).to.include({
        runAsNonRoot: true,
        runAsUser: 1000,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        privileged: false,
      });
      expect(container.securityContext).to.have.deep.property('capabilities', { drop: ['ALL'] });
      expect(container.image).to.equal(mainContainer(mustFind(objects, 'Deployment', 'api')).image);
      expect(container.command).to.deep.equal(['node', 'dist/doctor/main.js']);
      const service = mustFind(objects, 'Service', 'api');
      expect(container.args[0]).to.equal(`http://${service.metadata.name}.connector.svc:${service.spec.ports[0].port}`);
      expect((container.env ?? []).map((e) => e.name)).to.include('CONNECTOR_DOCTOR_PUBLIC_URL');
      expect(JSON.stringify(pod), 'no secret value in the pod spec').not.to.include('ci-placeholder');
    });
  }

  it('renders no test pod with tests.enabled=false, and no link check with tests.linkCheck=false', function () {
    expect(testPods(render({ set: ['tests.enabled=false'] }))).to.deep.equal([]);
    const env = podContainer(doctorPod(render({ valuesFiles: [ALL_FEATURES], set: ['tests.linkCheck=false'] }))).env!.map((e) => e.name);
    expect(env).to.deep.equal(['CONNECTOR_DOCTOR_PUBLIC_URL']);
  });

  it('reads LINK_SECRET from the release Secret by reference, and PUBLIC_URL from the existing Secret when the chart has none', function () {
    const env = podContainer(doctorPod(render({ valuesFiles: [EXISTING_SECRET] }))).env!;
    expect(env.find((e) => e.name === 'CONNECTOR_DOCTOR_LINK_SECRET')?.valueFrom).to.deep.equal({
      secretKeyRef: { name: 'connector-credentials', key: 'LINK_SECRET', optional: true },
    });
    expect(env.find((e) => e.name === 'CONNECTOR_DOCTOR_PUBLIC_URL')?.value).to.equal('https://connector.example.com');
    const unset = podContainer(doctorPod(render({ valuesFiles: [EXISTING_SECRET], set: ['config.publicUrl='] }))).env!;
    expect(unset.find((e) => e.name === 'CONNECTOR_DOCTOR_PUBLIC_URL')?.valueFrom).to.deep.equal({
      secretKeyRef: { name: 'connector-credentials', key: 'PUBLIC_URL', optional: true },
    });
  });

  it('calls the Service under the path of a PUBLIC_URL that has one', function () {
    const pod = doctorPod(render({ valuesFiles: [ALL_FEATURES], set: ['config.publicUrl=https://example.com/connector/'] }));
    expect(podContainer(pod).args[0]).to.match(/^http:\/\/rel-connector-api\.connector\.svc:80\/connector$/);
  });

  it('lets the test pod through the API NetworkPolicy when the http port is restricted', function () {
    const objects = render({ valuesFiles: [ALL_FEATURES] });
    const podLabels = doctorPod(objects).metadata.labels as Record<string, string>;
    const policy = named(objects, 'NetworkPolicy', mustFind(objects, 'Deployment', 'api').metadata.name)!;
    const httpRule = policy.spec.ingress.find((rule: any) => rule.ports.some((p: any) => p.port === 'http'));
    const admits = httpRule.from.some(
      (peer: any) => peer.podSelector && Object.entries<string>(peer.podSelector.matchLabels).every(([k, v]) => podLabels[k] === v),
    );
    expect(admits).to.equal(true);
  });

  describe("run locally: the pod's command and environment against the built API", function () {
    let redis: TestRedis;
    before(async () => {
      redis = await startRedis();
    });
    afterEach(async () => {
      for (const child of running.splice(0)) {
        if (child.exitCode === null && child.signalCode === null) {
          const gone = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGKILL');
          await gone;
        }
      }
    });
    after(async () => redis?.stop());

    it('ci/all-features-values.yaml (Redis, https PUBLIC_URL behind the ingress): every rule passes and the pod exits 0, the link, MCP and OAuth rules included', async () => {
      const run = await runTestPod(render({ valuesFiles: [ALL_FEATURES] }), redis.url);
      expect(failures(run), run.stdout).to.deep.equal([]);
      expect(run.code).to.equal(0);
      expect(run.rule('openapi.servers').message).to.equal('servers[0].url is https://connector.example.com');
      expect(run.rule('probe.tls')).to.include({ status: 'PASS' });
      for (const id of ['link.mint', 'link.me', 'link.revoke', 'link.refused', 'mcp.request-2026-07-28', 'oauth.authorize-requires-pkce']) {
        expect(run.rule(id).status, id).to.equal('PASS');
      }
    });

    it('ci/all-features-values.yaml with a PUBLIC_URL path (https://connector.example.com/connector): every rule passes and the pod exits 0', async () => {
      const run = await runTestPod(
        render({ valuesFiles: [ALL_FEATURES], set: ['config.publicUrl=https://connector.example.com/connector'] }),
        redis.url,
      );
      expect(failures(run), run.stdout).to.deep.equal([]);
      expect(run.code).to.equal(0);
      expect(run.rule('llms.openapi-link').message).to.equal('links to https://connector.example.com/connector/openapi.json');
    });

    it('ci/embedded-api-only-values.yaml (memory, http://localhost PUBLIC_URL): every rule passes and the pod exits 0, TLS only warns', async () => {
      const run = await runTestPod(render({ valuesFiles: [EMBEDDED] }));
      expect(failures(run), run.stdout).to.deep.equal([]);
      expect(run.code).to.equal(0);
      expect(run.rule('probe.tls').status).to.equal('WARN');
      expect(run.rule('link.refused').status).to.equal('PASS');
    });
  });
});
