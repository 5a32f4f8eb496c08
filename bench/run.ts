import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { JOB_QUEUE_NAME, RedisKeys } from '../shared/redis/redis-keys';
import { answers, DIST, freePort, residentMemory, round, setLogDir, startNode, startRedis, type BenchProcess } from './bench-processes';
import { freshKeys, runLoad, type HttpFigure, type HttpScenario, type LoadSettings } from './http-load';
import { drain, openQueue, submitToSucceeded } from './job-load';
import { mcpScenario } from './mcp-scenario';
import { formatTable, targets, type BenchResults } from './report';

// `npm run bench`: a private redis-server, the built API (Redis and memory) and worker, a bare Express
// process and a bare BullMQ worker as baselines, all as separate processes; autocannon runs in this one.
// `--smoke` runs every scenario briefly (CI); `--out <file>` says where results.json goes.
const args = process.argv.slice(2);
const SMOKE = args.includes('--smoke');
const OUT = args.includes('--out') ? path.resolve(args[args.indexOf('--out') + 1]) : SMOKE ? path.join(os.tmpdir(), 'connector-bench-smoke.json') : path.resolve(DIST, '..', 'bench', 'results.json');
const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const SETTINGS = {
  durationSeconds: env('BENCH_SECONDS', SMOKE ? 1 : 10),
  connections: env('BENCH_CONNECTIONS', SMOKE ? 10 : 50),
  workerConcurrency: env('BENCH_WORKER_CONCURRENCY', 4),
  drainJobs: env('BENCH_DRAIN_JOBS', SMOKE ? 200 : 10_000),
  latencyRatePerSecond: env('BENCH_LATENCY_RATE', 200),
  latencySeconds: env('BENCH_LATENCY_SECONDS', SMOKE ? 1 : 10),
};
const WARMUP_SECONDS = SMOKE ? 0 : 2;
/** The whole run stops by itself, whatever hangs. */
const WATCHDOG_MS = SMOKE ? 180_000 : 900_000;
/** Set to a directory to write V8 CPU profiles of the API and worker (`node --cpu-prof`). */
const PROFILE_DIR = process.env.BENCH_CPU_PROF_DIR;
const LINK_SECRET = 'bench-link-secret';

const running: BenchProcess[] = [];
async function started<T extends BenchProcess>(proc: Promise<T>): Promise<T> {
  const ready = await proc;
  running.push(ready);
  return ready;
}

async function connectorEnv(redisUrl: string | undefined): Promise<Record<string, string>> {
  return {
    CONNECTOR_SECRET: 'bench-connector-secret-0123456789abcdef',
    PUBLIC_URL: 'http://localhost:8787',
    DASHBOARD_URL: 'https://dashboard.example.com',
    LINK_SECRET,
    PORT: String(await freePort()),
    METRICS_PORT: String(await freePort()),
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    RATE_LIMIT_PER_MINUTE: '1000000',
    PLACEHOLDER_JOB_MS: '0',
    WORKER_CONCURRENCY: String(SETTINGS.workerConcurrency),
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
  };
}

function profileArgs(): string[] {
  return PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(PROFILE_DIR)] : [];
}

async function startConnectorApi(name: string, redisUrl: string | undefined): Promise<{ proc: BenchProcess; base: string }> {
  const processEnv = await connectorEnv(redisUrl);
  const base = `http://127.0.0.1:${processEnv.PORT}`;
  const proc = await started(startNode(name, 'api/main.js', processEnv, () => answers(`${base}/readyz`), profileArgs()));
  return { proc, base };
}

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

async function link(base: string): Promise<Record<string, string>> {
  const { token } = (await post(`${base}/v1/link`, { 'x-link-secret': LINK_SECRET }, { subject: 'bench' })) as { token: string };
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
}

async function measure(scenario: HttpScenario, settings: LoadSettings): Promise<HttpFigure> {
  if (WARMUP_SECONDS > 0) await runLoad(scenario, { ...settings, durationSeconds: WARMUP_SECONDS });
  const figure = await runLoad(scenario, settings);
  process.stdout.write(`  (${figure.id}) ${figure.title} [${figure.backend}]: ${figure.requestsPerSecond} req/s\n`);
  return figure;
}

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const loadStart = os.loadavg().map((n) => round(n, 2));
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'connector-bench-'));
  setLogDir(logDir);
  process.stdout.write(`${SMOKE ? 'smoke' : 'full'} run; process logs in ${logDir}\n`);

  const redis = await started(startRedis());
  const client = new Redis(redis.url, { maxRetriesPerRequest: null });
  const keys = new RedisKeys('connector:');
  const queue = await openQueue(client, JOB_QUEUE_NAME, keys.bullPrefix);
  // The worker must not take the API's cores while the HTTP scenarios run: its cost is (g) and (h).
  await queue.pause();

  const barePort = await freePort();
  const bareServer = await started(startNode('bare-server', 'bench/bare-server.js', { PORT: String(barePort) }, () => answers(`http://127.0.0.1:${barePort}/bare`)));
  const api = await startConnectorApi('api-redis', redis.url);
  const workerEnv = await connectorEnv(redis.url);
  const worker = await started(startNode('worker', 'worker/main.js', workerEnv, () => answers(`http://127.0.0.1:${workerEnv.METRICS_PORT}/readyz`), profileArgs()));

  const auth = await link(api.base);
  const replayJob = { input: { prompt: 'bench' } };
  await post(`${api.base}/v1/jobs`, { ...auth, 'idempotency-key': 'bench-replay' }, replayJob);
  const load: LoadSettings = { durationSeconds: SETTINGS.durationSeconds, connections: SETTINGS.connections, redis: client };

  process.stdout.write('HTTP scenarios\n');
  const bare: HttpScenario = { id: 'a', title: 'bare Express 5 route', backend: 'none', url: `http://127.0.0.1:${barePort}/bare`, pid: bareServer.child.pid };
  const apiPid = api.proc.child.pid;
  const baselineFirst = await measure(bare, load);
  const http: HttpFigure[] = [];
  http.push(await measure({ id: 'b', title: 'GET /v1/me', backend: 'redis', url: `${api.base}/v1/me`, pid: apiPid, options: { headers: auth } }, load));
  http.push(
    await measure(
      { id: 'c', title: 'POST /v1/things', backend: 'redis', url: `${api.base}/v1/things`, pid: apiPid, options: { method: 'POST', headers: auth, body: '{"name":"bench thing","notes":"a note"}' } },
      load,
    ),
  );
  http.push(
    await measure(
      {
        id: 'd',
        title: 'POST /v1/jobs, fresh key',
        backend: 'redis',
        url: api.base,
        pid: apiPid,
        options: { requests: [{ method: 'POST', path: '/v1/jobs', headers: auth, body: JSON.stringify(replayJob), setupRequest: freshKeys(`fresh-${Date.now()}`) }] },
      },
      load,
    ),
  );
  http.push(
    await measure(
      { id: 'e', title: 'POST /v1/jobs, replay', backend: 'redis', url: `${api.base}/v1/jobs`, pid: apiPid, options: { method: 'POST', headers: { ...auth, 'idempotency-key': 'bench-replay' }, body: JSON.stringify(replayJob) } },
      load,
    ),
  );
  const mcp = await mcpScenario(api.base, auth);
  if (mcp.scenario) http.push(await measure({ ...mcp.scenario, pid: apiPid }, load));

  const memoryApi = await startConnectorApi('api-memory', undefined);
  const memoryAuth = await link(memoryApi.base);
  http.push(await measure({ id: 'b-memory', title: 'GET /v1/me', backend: 'memory', url: `${memoryApi.base}/v1/me`, pid: memoryApi.proc.child.pid, options: { headers: memoryAuth } }, load));
  await memoryApi.proc.stop();
  const baselineLast = await measure(bare, load);
  const baselineRps = (baselineFirst.requestsPerSecond + baselineLast.requestsPerSecond) / 2;
  const baselineCpu = meanCpu(baselineFirst, baselineLast);
  for (const figure of http) {
    figure.ofBaseline = round(figure.requestsPerSecond / baselineRps, 2);
    figure.ofBaselineByCpu = baselineCpu && figure.serverCpuUsPerRequest ? round(baselineCpu / figure.serverCpuUsPerRequest, 2) : null;
  }

  process.stdout.write('worker drain\n');
  // The jobs the HTTP scenarios queued are not part of the drain.
  await queue.obliterate({ force: true });
  const warmup = Math.max(20, Math.round(SETTINGS.drainJobs / 10));
  const redisPid = redis.child.pid;
  await drain(queue, client, warmup, 'createJob');
  const connectorDrain = await drain(queue, client, SETTINGS.drainJobs, 'createJob', { worker: worker.child.pid, redis: redisPid });
  const bareQueue = await openQueue(client, 'bare', 'bench-bare');
  await bareQueue.pause();
  const bareWorker = await started(
    startNode('bare-worker', 'bench/bare-worker.js', { REDIS_URL: redis.url, QUEUE_NAME: 'bare', QUEUE_PREFIX: 'bench-bare', WORKER_CONCURRENCY: String(SETTINGS.workerConcurrency) }, async (output) =>
      output().includes('ready'),
    ),
  );
  await drain(bareQueue, client, warmup, 'noop');
  const bareDrain = await drain(bareQueue, client, SETTINGS.drainJobs, 'noop', { worker: bareWorker.child.pid, redis: redisPid });
  await bareWorker.stop();
  await bareQueue.close();

  process.stdout.write('submit-to-succeeded latency\n');
  const latency = await submitToSucceeded({ baseUrl: api.base, token: auth.authorization.slice('Bearer '.length), ratePerSecond: SETTINGS.latencyRatePerSecond, seconds: SETTINGS.latencySeconds, queue });

  const memory = { api: residentMemory(api.proc.child.pid), worker: residentMemory(worker.child.pid) };
  await queue.close();
  client.disconnect();
  const measured: Omit<BenchResults, 'targets'> = {
    schema: 1,
    mode: SMOKE ? 'smoke' : 'full',
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: {
      cores: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      platform: `${os.platform()} ${os.release()}`,
      node: process.version,
      redis: redis.version,
      loadAverage: { start: loadStart, end: os.loadavg().map((n) => round(n, 2)) },
    },
    settings: SETTINGS,
    baseline: { first: baselineFirst.requestsPerSecond, last: baselineLast.requestsPerSecond, requestsPerSecond: round(baselineRps, 0) },
    http: [{ ...baselineFirst, ofBaseline: round(baselineFirst.requestsPerSecond / baselineRps, 2), ofBaselineByCpu: baselineCpu && baselineFirst.serverCpuUsPerRequest ? round(baselineCpu / baselineFirst.serverCpuUsPerRequest, 2) : null }, ...http],
    mcp: { available: mcp.available, ...(mcp.reason ? { reason: mcp.reason } : {}) },
    drain: { connector: connectorDrain, bare: bareDrain, ofBare: round(connectorDrain.jobsPerSecond / bareDrain.jobsPerSecond, 2) },
    latency,
    memory,
  };
  const results: BenchResults = { ...measured, targets: targets(measured) };
  writeFileSync(OUT, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\n${formatTable(results)}\nresults written to ${OUT}\n`);
  await stopAll();
  rmSync(logDir, { recursive: true, force: true });
}

function meanCpu(first: HttpFigure, last: HttpFigure): number | null {
  if (first.serverCpuUsPerRequest === null || last.serverCpuUsPerRequest === null) return null;
  return (first.serverCpuUsPerRequest + last.serverCpuUsPerRequest) / 2;
}

async function stopAll(): Promise<void> {
  // Reverse order: the connector's processes close before the Redis they need.
  for (const proc of running.reverse().splice(0)) await proc.stop();
}

const watchdog = setTimeout(() => fail(new Error(`the bench did not finish within ${WATCHDOG_MS / 1000} s`)), WATCHDOG_MS);
watchdog.unref();
process.once('SIGINT', () => fail(new Error('interrupted')));

function fail(error: unknown): void {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  void stopAll().finally(() => process.exit(1));
}

main().then(
  () => process.exit(0),
  (error: unknown) => fail(error),
);
