import autocannon from 'autocannon';
import type { RedisClient } from '../shared/adapters/redis/redis-client';
import { JOB_QUEUE_NAME, RedisKeys } from '../shared/adapters/redis/redis-keys';
import { singleNodeConnection } from '../shared/platform/config/redis-settings';
import { startNode } from '../test/testkit/node-process';
import { thisNode } from './bench-node';
import { BENCH_DIST, cpuTimeMs, loadAverage, round, startRedis, waitUntil } from './bench-processes';
import { benchClient, closeBenchClients } from './bench-redis';
import { SETTINGS } from './bench-settings';
import { median, option, runComparison } from './compare-cli';
import { inLogDir, link, oneNodeEnv, startApi, startFloorServer, startWorker, track } from './connector-processes';
import { freshKeys, type HttpScenario } from './http-load';
import { JOB_BODY, TOGETHER_CONNECTIONS } from './together-load';

// `npm run bench:pipeline -- [--rounds 5] [--jobs 3000]`: the end-to-end cost of a paid job, from the request
// that accepts it to the worker's completion. Two pipelines, each on a private Redis of its own so that each
// Redis's CPU is its pipeline's: the connector (the built API and one built worker) and the floor (the floor
// server's `POST /job`, `floor-server.ts`, drained by a bare BullMQ worker, `bare-worker.ts`, with the same
// concurrency). Every round sends `--jobs` fresh jobs to both at the same moment (25 connections each), waits
// until every one of them has finished, and reads the CPU of the three processes of each pipeline from /proc.

/** The three processes of a pipeline, and how many of its jobs have finished (completed or failed). */
interface Pipeline {
  label: string;
  pids: { api: number; worker: number; redis: number };
  url: string;
  options: HttpScenario['options'];
  finished(): Promise<{ completed: number; failed: number }>;
}

/** CPU µs per job of each process of a pipeline in one round, and their sum. */
interface PipelineCost {
  api: number;
  worker: number;
  redis: number;
  total: number;
}

const PARTS = ['api', 'worker', 'redis'] as const;

/** A BullMQ queue's finished jobs, counted with plain ZCARDs (as `job-load.ts` counts a drain's). */
function finishedJobs(client: RedisClient, queueKey: string): Pipeline['finished'] {
  return async () => {
    const [completed, failed] = await Promise.all([client.zcard(`${queueKey}:completed`), client.zcard(`${queueKey}:failed`)]);
    return { completed, failed };
  };
}

/** The connector's pipeline: a private Redis, the built API on it and one built worker (production's settings). */
async function connectorPipeline(): Promise<Pipeline> {
  const redis = await track(startRedis());
  const env = oneNodeEnv(redis.url);
  const api = await startApi('api', env);
  const worker = await startWorker(env);
  const client = await benchClient(singleNodeConnection(redis.url), 'pipeline-connector');
  const auth = await link(api.base);
  const queueKey = `${RedisKeys.forConnection('connector:', singleNodeConnection(redis.url)).bullPrefix}:${JOB_QUEUE_NAME}`;
  return {
    label: 'connector',
    pids: { api: api.proc.child.pid!, worker: worker.child.pid!, redis: redis.pid! },
    url: api.base,
    options: {
      requests: [
        { method: 'POST', path: '/v1/jobs', headers: auth, body: JOB_BODY.body, setupRequest: freshKeys(`pipeline-${Date.now()}`) },
      ],
    },
    finished: finishedJobs(client, queueKey),
  };
}

/** The floor pipeline: a private Redis, the floor server's `POST /job`, and a bare BullMQ worker on its queue. */
async function floorPipeline(): Promise<Pipeline> {
  const redis = await track(startRedis());
  const env = oneNodeEnv(redis.url);
  const server = await startFloorServer(env);
  // The floor server adds to the queue `floor` under the prefix `bench-floor` (`floor-server.ts`).
  const workerEnv = { ...env, QUEUE_NAME: 'floor', QUEUE_PREFIX: 'bench-floor', WORKER_CONCURRENCY: String(SETTINGS.workerConcurrency) };
  const worker = await track(
    startNode('floor-worker', 'bench/bare-worker.js', workerEnv, async (output) => output().includes('ready'), [], BENCH_DIST),
  );
  const client = await benchClient(singleNodeConnection(redis.url), 'pipeline-floor');
  return {
    label: 'floor',
    pids: { api: server.proc.child.pid!, worker: worker.child.pid!, redis: redis.pid! },
    url: `${server.base}/job`,
    options: JOB_BODY,
    finished: finishedJobs(client, 'bench-floor:floor'),
  };
}

/** Sends `jobs` fresh jobs to the pipeline and waits until they have all finished; returns its CPU per job. */
async function runPipeline(pipeline: Pipeline, jobs: number): Promise<PipelineCost> {
  const before = await pipeline.finished();
  const cpuBefore = PARTS.map((part) => cpuTimeMs(pipeline.pids[part])!);
  const result = await autocannon({ url: pipeline.url, ...pipeline.options, connections: TOGETHER_CONNECTIONS, amount: jobs });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${pipeline.label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  let now = before;
  await waitUntil(
    async () => {
      now = await pipeline.finished();
      return now.completed + now.failed - before.completed - before.failed >= jobs;
    },
    300_000,
    `${pipeline.label}'s ${jobs} jobs to finish`,
  );
  if (now.failed > before.failed) throw new Error(`${pipeline.label}: ${now.failed - before.failed} jobs failed`);
  const [api, worker, redis] = PARTS.map((part, i) => ((cpuTimeMs(pipeline.pids[part])! - cpuBefore[i]) * 1000) / jobs);
  return { api, worker, redis, total: api + worker + redis };
}

function describe(cost: PipelineCost): string {
  return `API ${round(cost.api, 0)} + worker ${round(cost.worker, 0)} + Redis ${round(cost.redis, 0)} = ${round(cost.total, 0)} µs/job`;
}

async function main(): Promise<void> {
  const rounds = Number(option('rounds', '5'));
  const jobs = Number(option('jobs', '3000'));
  process.stdout.write(`every process on ${thisNode()}; load average ${loadAverage()}\n`);
  await inLogDir('pipeline', async () => {
    printSummary(await measurePipelines(rounds, jobs), rounds);
    await closeBenchClients();
  });
  process.stdout.write(`load average at the end ${loadAverage()}\n`);
}

/** Both pipelines started, one unmeasured round, then `rounds` measured: each one's cost per round. */
async function measurePipelines(rounds: number, jobs: number): Promise<PipelineCost[][]> {
  const pipelines = [await connectorPipeline(), await floorPipeline()];
  // One round unmeasured: the JIT settles and both queues hold jobs before the clock starts.
  await Promise.all(pipelines.map((pipeline) => runPipeline(pipeline, Math.max(100, Math.floor(jobs / 2)))));
  const costs: PipelineCost[][] = [[], []];
  for (let pass = 1; pass <= rounds; pass += 1) {
    const [ours, floor] = await Promise.all(pipelines.map((pipeline) => runPipeline(pipeline, jobs)));
    costs[0].push(ours);
    costs[1].push(floor);
    process.stdout.write(
      `round ${pass}: connector ${describe(ours)}; floor ${describe(floor)}; floor/connector ${round(floor.total / ours.total)}\n`,
    );
  }
  return costs;
}

function printSummary(costs: PipelineCost[][], rounds: number): void {
  const medianOf = (side: PipelineCost[]): PipelineCost => ({
    api: median(side.map((c) => c.api)),
    worker: median(side.map((c) => c.worker)),
    redis: median(side.map((c) => c.redis)),
    total: median(side.map((c) => c.total)),
  });
  const ratios = costs[0].map((ours, i) => costs[1][i].total / ours.total);
  process.stdout.write(`\nCPU per paid job accepted and finished on ${thisNode()}, medians of ${rounds} rounds\n`);
  process.stdout.write(`connector: ${describe(medianOf(costs[0]))}\n`);
  process.stdout.write(`floor: ${describe(medianOf(costs[1]))}\n`);
  process.stdout.write(`floor/connector: ${round(median(ratios))} (rounds ${ratios.map((r) => round(r)).join(', ')})\n`);
}

runComparison('pipeline', main);
