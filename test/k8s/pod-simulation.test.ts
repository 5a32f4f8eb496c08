import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { helm, type K8sObject, render, repoRoot } from '../support/helm';
import { type Container, containerPort, mainContainer, mustFind, resolveEnv } from '../support/manifests';
import { childEnv } from '../testkit/child-env';
import { freePort } from '../testkit/free-port';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';
import { dockerfileStages, effective, lineage } from './support/dockerfile';

/*
 * A pod without a cluster: the container's environment is resolved from the rendered ConfigMap and Secret
 * exactly as the kubelet would (envFrom in order, then env), the image's ENV and CMD come from the
 * Dockerfile target, every containerPort is remapped to a free local port, and the built process (dist/,
 * built by `npm test` before mocha) is started with that environment and nothing else. The probes are
 * then called on the paths and named ports the manifest declares.
 */

const ALL_FEATURES = 'charts/connector/ci/all-features-values.yaml';
const EMBEDDED = 'charts/connector/ci/embedded-api-only-values.yaml';
const EXISTING_SECRET = 'charts/connector/ci/existing-secret-values.yaml';
const REQUIRED = ['CONNECTOR_SECRET', 'PUBLIC_URL', 'DASHBOARD_URL', 'LINK_SECRET'];

const stages = dockerfileStages(readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8'));

/** ENV of the image (the runtime base and the target), as the container starts with it. */
function imageEnv(target: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const stage of lineage(stages, target).reverse()) {
    for (const instruction of stage.instructions.filter((i) => i.keyword === 'ENV')) {
      for (const pair of instruction.args.split(' ')) {
        const [key, ...rest] = pair.split('=');
        if (key && rest.length > 0) env[key] = rest.join('=');
      }
    }
  }
  return env;
}

interface Probe {
  httpGet: { path: string; port: string };
}

interface SimulatedPod {
  readonly container: Container & { livenessProbe: Probe; readinessProbe: Probe; startupProbe: Probe };
  readonly env: Record<string, string>;
  /** Local port standing in for a named container port. */
  port(name: string): number;
  output(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly child: ChildProcess;
}

const running: ChildProcess[] = [];

async function startPod(
  deployment: K8sObject,
  objects: K8sObject[],
  options: { redisUrl?: string; externalSecrets?: Record<string, Record<string, string>> } = {},
): Promise<SimulatedPod> {
  const container = mainContainer(deployment) as SimulatedPod['container'];
  const target = container.name; // the Dockerfile target of the same name
  const resolved = resolveEnv(container, objects, options.externalSecrets);
  const env: Record<string, string> = childEnv({ ...imageEnv(target), ...resolved });

  const mapped = new Map<number, number>();
  for (const port of container.ports ?? []) mapped.set(port.containerPort, await freePort());
  for (const [key, value] of Object.entries(env)) {
    if ((key === 'PORT' || key === 'METRICS_PORT') && mapped.has(Number(value))) env[key] = String(mapped.get(Number(value)));
  }
  if (options.redisUrl !== undefined) {
    expect(env.REDIS_URL, 'the manifest gives the container a REDIS_URL to replace').to.be.a('string').and.not.equal('');
    env.REDIS_URL = options.redisUrl;
  }

  const cmd = JSON.parse(effective(stages, target, 'CMD')!) as string[];
  expect(cmd[0]).to.equal('node');
  // `npm test` builds dist/ before mocha; a missing entry point fails the test, it is never skipped.
  const entry = cmd.at(-1)!;
  expect(existsSync(path.join(repoRoot, entry)), `${entry} is built (npm run build)`).to.equal(true);
  const child = spawn(process.execPath, cmd.slice(1), { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    container,
    env,
    port: (name) => mapped.get(containerPort(container, name))!,
    output: () => output,
    exited,
    child,
  };
}

function httpStatus(port: number, urlPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: urlPath, timeout: 2000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
  });
}

/** Polls a probe until it answers `status`, failing at once (with the process output) if the process exits. */
async function expectProbe(pod: SimulatedPod, probe: Probe, status: number, timeoutMs = 20_000): Promise<void> {
  const port = pod.port(probe.httpGet.port);
  const answered = waitFor(async () => (await httpStatus(port, probe.httpGet.path)).status === status, {
    timeoutMs,
    what: `${probe.httpGet.path} on ${probe.httpGet.port} (${port}) = ${status}`,
  });
  const died = pod.exited.then(({ code, signal }) => {
    throw new Error(`process exited (code ${code}, signal ${signal}) before ${probe.httpGet.path} answered ${status}:\n${pod.output()}`);
  });
  await Promise.race([answered, died]);
}

async function expectAllProbesPass(pod: SimulatedPod): Promise<void> {
  await expectProbe(pod, pod.container.startupProbe, 200);
  await expectProbe(pod, pod.container.livenessProbe, 200);
  await expectProbe(pod, pod.container.readinessProbe, 200);
}

/** SIGTERM as the kubelet sends it; the process must exit 0 within the pod's grace period. */
async function expectGracefulStop(pod: SimulatedPod, deployment: K8sObject): Promise<number> {
  const graceMs = deployment.spec.template.spec.terminationGracePeriodSeconds * 1000;
  const started = Date.now();
  pod.child.kill('SIGTERM');
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
  const result = await Promise.race([pod.exited, timeout]);
  expect(result, `exit within terminationGracePeriodSeconds (${graceMs} ms)`).not.to.equal('timeout');
  expect(result, pod.output()).to.deep.equal({ code: 0, signal: null });
  return Date.now() - started;
}

async function expectCrash(pod: SimulatedPod, names: string[]): Promise<void> {
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000).unref());
  const result = await Promise.race([pod.exited, timeout]);
  expect(result, 'the process exits on its own (a crash-looping container)').not.to.equal('timeout');
  const { code } = result as { code: number | null };
  expect(code, pod.output()).to.be.a('number').and.not.equal(0);
  for (const name of names) expect(pod.output(), `names ${name}`).to.include(name);
  expect(pod.output()).not.to.match(/listening/i);
}

describe('pod simulation: the rendered manifests run the built processes', function () {
  this.timeout(60_000);
  let redis: TestRedis;

  before(async function () {
    this.timeout(180_000);
    helm();
    redis = await startRedis();
  });

  afterEach(async function () {
    for (const child of running.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await gone;
      }
    }
    // a test that stopped the Redis leaves it restarted for the next one
    if (!(await redisAnswers())) await redis.restart();
  });

  after(async function () {
    await redis?.stop();
  });

  async function redisAnswers(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = net.connect(redis.port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  }

  describe('with ci/all-features-values.yaml (secrets from values, Redis)', function () {
    let objects: K8sObject[];
    before(function () {
      objects = render({ valuesFiles: [ALL_FEATURES] });
    });

    it('api: startup, liveness and readiness probes answer 200 on the http port; /metrics answers on the metrics port', async function () {
      const deployment = mustFind(objects, 'Deployment', 'api');
      const pod = await startPod(deployment, objects, { redisUrl: redis.url });
      await expectAllProbesPass(pod);
      const metrics = await httpStatus(pod.port('metrics'), '/metrics');
      expect(metrics.status).to.equal(200);
      expect(metrics.body).to.include('connector_http_requests_total');
      expect((await httpStatus(pod.port('http'), '/metrics')).status, '/metrics is not on the ingress-facing port').not.to.equal(200);
    });

    it('api: readiness turns 503 while Redis is down and 200 again when it returns, liveness stays 200', async function () {
      const deployment = mustFind(objects, 'Deployment', 'api');
      const pod = await startPod(deployment, objects, { redisUrl: redis.url });
      await expectAllProbesPass(pod);
      await redis.kill();
      await expectProbe(pod, pod.container.readinessProbe, 503);
      expect((await httpStatus(pod.port('http'), '/healthz')).status).to.equal(200);
      await redis.restart();
      await expectProbe(pod, pod.container.readinessProbe, 200);
    });

    it('api: exits 0 on SIGTERM within terminationGracePeriodSeconds, without printing a secret', async function () {
      const deployment = mustFind(objects, 'Deployment', 'api');
      const pod = await startPod(deployment, objects, { redisUrl: redis.url });
      await expectAllProbesPass(pod);
      await expectGracefulStop(pod, deployment);
      expect(pod.output()).not.to.include(pod.env.CONNECTOR_SECRET);
      expect(pod.output()).not.to.include(pod.env.LINK_SECRET);
    });

    it('worker: startup, liveness and readiness probes answer 200 on the metrics port, which also serves /metrics', async function () {
      const deployment = mustFind(objects, 'Deployment', 'worker');
      const pod = await startPod(deployment, objects, { redisUrl: redis.url });
      await expectAllProbesPass(pod);
      const metrics = await httpStatus(pod.port('metrics'), '/metrics');
      expect(metrics.status).to.equal(200);
      expect(metrics.body).to.include('connector_');
    });

    it('worker: exits 0 on SIGTERM within terminationGracePeriodSeconds', async function () {
      const deployment = mustFind(objects, 'Deployment', 'worker');
      const pod = await startPod(deployment, objects, { redisUrl: redis.url });
      await expectAllProbesPass(pod);
      await expectGracefulStop(pod, deployment);
    });
  });

  describe('with ci/embedded-api-only-values.yaml (no Redis, no worker)', function () {
    it('api: the probes answer 200 on the in-memory backend, and it exits 0 on SIGTERM in time', async function () {
      const objects = render({ valuesFiles: [EMBEDDED] });
      const deployment = mustFind(objects, 'Deployment', 'api');
      const pod = await startPod(deployment, objects);
      expect(pod.env).not.to.have.property('REDIS_URL');
      await expectAllProbesPass(pod);
      await expectGracefulStop(pod, deployment);
    });
  });

  describe('with the chart defaults (empty secrets): the crash-loop', function () {
    let objects: K8sObject[];
    before(function () {
      objects = render();
    });

    it('api: exits non-zero before listening, naming the four required variables', async function () {
      const pod = await startPod(mustFind(objects, 'Deployment', 'api'), objects);
      for (const name of REQUIRED) expect(pod.env, name).not.to.have.property(name);
      await expectCrash(pod, REQUIRED);
    });

    it('worker: exits non-zero before listening, naming the four required variables', async function () {
      const pod = await startPod(mustFind(objects, 'Deployment', 'worker'), objects);
      await expectCrash(pod, REQUIRED);
    });
  });

  describe('with ci/existing-secret-values.yaml', function () {
    let objects: K8sObject[];
    before(function () {
      objects = render({ valuesFiles: [EXISTING_SECRET] });
    });

    for (const component of ['api', 'worker']) {
      it(`${component}: crash-loops naming CONNECTOR_SECRET, LINK_SECRET and DASHBOARD_URL while the existing Secret is absent`, async function () {
        const externalSecrets = { 'connector-redis': { url: redis.url } };
        const pod = await startPod(mustFind(objects, 'Deployment', component), objects, { externalSecrets });
        await expectCrash(pod, ['CONNECTOR_SECRET', 'LINK_SECRET', 'DASHBOARD_URL']);
        expect(pod.output()).not.to.include('PUBLIC_URL');
      });

      it(`${component}: passes its probes once the existing Secrets hold the keys`, async function () {
        const externalSecrets = {
          'connector-credentials': {
            CONNECTOR_SECRET: 'existing-secret-test-value-0123456789abcdef',
            LINK_SECRET: 'existing-link-secret-0123456789abcdef',
            DASHBOARD_URL: 'https://dashboard.example.com',
          },
          'connector-redis': { url: redis.url },
        };
        const pod = await startPod(mustFind(objects, 'Deployment', component), objects, { externalSecrets });
        await expectAllProbesPass(pod);
      });
    }
  });
});
