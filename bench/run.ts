import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JOB_QUEUE_NAME, RedisKeys } from '../shared/adapters/redis/redis-keys';
import { singleNodeConnection } from '../shared/platform/config/redis-settings';
import { setLogDir } from '../test/testkit/node-process';
import { thisNode } from './bench-node';
import { redisVersion, residentMemory, round, startRedis } from './bench-processes';
import { benchClient, closeBenchClients } from './bench-redis';
import { MEMORY_LIMITS, OUT, SETTINGS, SMOKE, WATCHDOG_MS } from './bench-settings';
import { runClusterPhase } from './cluster-phase';
import { link, oneNodeEnv, startApi, startBareServer, startBareWorker, startWorker, stopAll, track } from './connector-processes';
import { pairedDrains } from './drain-pairs';
import { runHttpPhase } from './http-phase';
import { openQueue, submitToSucceeded } from './job-load';
import { type ChargeFigure, charge, processCharges, runCgroups } from './memory-charge';
import { type BenchResults, formatTable, targets } from './report';
import { mergeResults } from './results-file';

type Cgroups = ReturnType<typeof runCgroups>;

/** What the phases measured, besides the HTTP figures: each process's charge per stretch. */
interface Charges {
  api: Record<string, ChargeFigure>;
  worker: Record<string, ChargeFigure>;
  bare: Record<string, ChargeFigure>;
}

// `npm run bench`: a private redis-server, the built API (Redis and memory) and worker, a bare Express
// process and a bare BullMQ worker as baselines, all separate processes; autocannon runs in this one. Then
// the cluster runs: a private 6-node Redis Cluster with 1 and 3 job-queue shards against the one node.
// bench/README.md describes the scenarios; bench-settings.ts the flags.
async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const loadStart = os.loadavg().map((n) => round(n, 2));
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'connector-bench-'));
  setLogDir(logDir);
  process.stdout.write(`${SMOKE ? 'smoke' : 'full'} run on ${thisNode()}; process logs in ${logDir}\n`);
  const cgroups = openCgroups();
  const oneNode = await runOneNode(cgroups);
  const cluster = await runClusterPhase({ bare: oneNode.bare, oneNode: { url: oneNode.redisUrl, client: oneNode.client } });
  await closeBenchClients();
  const measured: Omit<BenchResults, 'targets'> = {
    schema: 1,
    mode: SMOKE ? 'smoke' : 'full',
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machineOf(loadStart),
    settings: SETTINGS,
    ...oneNode.figures,
    cluster,
  };
  const results: BenchResults = { ...measured, targets: targets(measured) };
  // The soak's and the rolling restart's keys stay (results-file.ts).
  mergeResults(OUT, { ...results });
  process.stdout.write(`\n${formatTable(results)}\nresults written to ${OUT}\n`);
  await stopAll();
  cgroups?.removeAll();
  rmSync(logDir, { recursive: true, force: true });
}

/** Every process under the chart's memory limit for its kind, as in its container (`--no-memory-limits`: none). */
function openCgroups(): Cgroups | null {
  const cgroups = MEMORY_LIMITS ? runCgroups(String(process.pid)) : null;
  if (cgroups) {
    process.stdout.write(
      `memory cgroups (v${cgroups.version}): API ${cgroups.limitsMiB.api} MiB, worker ${cgroups.limitsMiB.worker} MiB (the chart's limits)\n`,
    );
  }
  return cgroups;
}

/** The machine and Node that produced the figures. */
function machineOf(loadStart: number[]): BenchResults['machine'] {
  return {
    cores: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
    nodeOrigin: process.env.BENCH_NODE_ORIGIN ?? 'direct',
    redis: redisVersion(),
    loadAverage: { start: loadStart, end: os.loadavg().map((n) => round(n, 2)) },
  };
}

/** The one-node scenarios: HTTP, the worker drain, then submit-to-succeeded latency; their processes stop after. */
async function runOneNode(cgroups: Cgroups | null) {
  const redis = await track(startRedis());
  const client = await benchClient(singleNodeConnection(redis.url), 'one-node');
  const queue = await openQueue(client, JOB_QUEUE_NAME, new RedisKeys('connector:').bullPrefix);
  // The worker must not take the API's cores while the HTTP scenarios run: its cost is (g) and (h).
  await queue.pause();
  const bareServer = await startBareServer(cgroups?.bareServer.procsFile);
  const api = await startApi('api-redis', oneNodeEnv(redis.url), undefined, cgroups?.api.procsFile);
  const worker = await startWorker(oneNodeEnv(redis.url), 'worker', undefined, cgroups?.worker.procsFile);

  process.stdout.write('HTTP scenarios\n');
  const bare = {
    id: 'a',
    title: 'bare Express 5 route',
    backend: 'none' as const,
    url: bareServer.url,
    pid: bareServer.proc.child.pid,
    cgroup: cgroups?.bareServer,
  };
  const http = await runHttpPhase({
    bare,
    api: { base: api.base, pid: api.proc.child.pid, cgroup: cgroups?.api },
    redis: client,
    memoryApiCgroup: cgroups?.apiMemory,
  });
  const charges: Charges = {
    api: Object.fromEntries(Object.entries(http.charges).filter(([id]) => id !== 'b-memory')),
    worker: {},
    bare: {},
  };
  if (cgroups) {
    // The worker sat idle (its queue paused) through the HTTP scenarios: its charge before any job.
    charges.worker.idle = charge(cgroups.worker, worker.child.pid);
    cgroups.worker.resetPeak();
    cgroups.bareWorker.resetPeak();
  }
  const drains = await runDrains({
    client,
    queue,
    redisUrl: redis.url,
    redisPid: redis.pid,
    workerPid: worker.child.pid,
    cgroups,
    charges,
  });
  const latency = await runLatency(api.base, queue);
  const memory = { api: residentMemory(api.proc.child.pid), worker: residentMemory(worker.child.pid) };
  if (cgroups) {
    charges.api.h = charge(cgroups.api, api.proc.child.pid);
    charges.worker.h = charge(cgroups.worker, worker.child.pid);
  }
  await queue.close();
  // The one-node figures are complete: their processes make way for the cluster runs' own.
  await worker.stop();
  await api.proc.stop();
  const figures = {
    baseline: {
      first: http.baselines[0].requestsPerSecond,
      last: http.baselines.at(-1)!.requestsPerSecond,
      requestsPerSecond: round(http.baselineRps, 0),
      runs: http.baselines.map((figure) => figure.requestsPerSecond),
    },
    http: [http.baselines[0], ...http.figures],
    mcp: { available: http.mcp.available, ...(http.mcp.reason ? { reason: http.mcp.reason } : {}) },
    drain: drains,
    latency,
    memory,
    memoryCharge: memoryChargeOf(cgroups, charges, http.charges['b-memory']),
  };
  return { bare, redisUrl: redis.url, client, figures };
}

interface DrainSetup {
  client: Awaited<ReturnType<typeof benchClient>>;
  queue: Awaited<ReturnType<typeof openQueue>>;
  redisUrl: string;
  redisPid: number | undefined;
  workerPid: number | undefined;
  cgroups: Cgroups | null;
  charges: Charges;
}

/** (g): the connector's worker against a bare BullMQ worker, drained in pairs. */
async function runDrains({ client, queue, redisUrl, redisPid, workerPid, cgroups, charges }: DrainSetup) {
  process.stdout.write('worker drain\n');
  // The jobs the HTTP scenarios queued are not part of the drain.
  await queue.obliterate({ force: true });
  const bareQueue = await openQueue(client, 'bare', 'bench-bare');
  await bareQueue.pause();
  const bareWorker = await startBareWorker(oneNodeEnv(redisUrl), cgroups?.bareWorker.procsFile);
  const drains = await pairedDrains(
    client,
    {
      connector: { queue, jobName: 'createJob', workerPid: workerPid },
      bare: { queue: bareQueue, jobName: 'noop', workerPid: bareWorker.child.pid },
    },
    { jobs: SETTINGS.drainJobs, pairs: SETTINGS.drainPairs, redisPid },
  );
  if (cgroups) {
    charges.worker.g = charge(cgroups.worker, workerPid);
    charges.bare.g = charge(cgroups.bareWorker, bareWorker.child.pid);
    cgroups.worker.resetPeak();
    cgroups.api.resetPeak();
  }
  await bareWorker.stop();
  await bareQueue.close();
  return drains;
}

/** (h): jobs at a steady rate, from the submit to their success. */
async function runLatency(base: string, queue: Awaited<ReturnType<typeof openQueue>>) {
  process.stdout.write('submit-to-succeeded latency\n');
  const token = (await link(base)).authorization.slice('Bearer '.length);
  return submitToSucceeded({
    baseUrl: base,
    token,
    ratePerSecond: SETTINGS.latencyRatePerSecond,
    seconds: SETTINGS.latencySeconds,
    queue,
  });
}

/** (i): each process's charge per stretch under the chart's limits, or null without cgroups. */
function memoryChargeOf(cgroups: Cgroups | null, charges: Charges, apiMemoryBackend: ChargeFigure | undefined) {
  if (!cgroups) return null;
  return {
    cgroupVersion: cgroups.version,
    api: processCharges(cgroups.limitsMiB.api, charges.api),
    apiMemoryBackend: apiMemoryBackend ?? null,
    worker: processCharges(cgroups.limitsMiB.worker, charges.worker),
    bareWorker: charges.bare.g ?? null,
  };
}

function fail(error: unknown): void {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  void stopAll().finally(() => process.exit(1));
}

setTimeout(() => fail(new Error(`the bench did not finish within ${WATCHDOG_MS / 1000} s`)), WATCHDOG_MS).unref();
process.once('SIGINT', () => fail(new Error('interrupted')));
main().then(
  () => process.exit(0),
  (error: unknown) => fail(error),
);
