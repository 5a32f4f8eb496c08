import { expect } from 'chai';
import type { RedisAccess, TestRedisCluster, TestRedisSentinelSet, TestTlsRedis } from '../testkit/redis-topologies';
import { waitFor } from '../testkit/wait-for';
import { BASE_ENV } from './harness';
import { type ApiUnderTest, type ProcessUnderTest, startApiProcess, startWorkerProcess } from './processes';
import { parseExposition } from './prometheus-text';

/**
 * Every worker checks for stalled jobs each second. Its own locks last 10 s: longer than a failover, so that
 * a worker cut off from a dead primary in the middle of a job can still record the job's completion on the
 * promoted replica once it reconnects, instead of its lock expiring and the job running a second time.
 */
const WORKER_TIMING = { JOB_LOCK_MS: '10000', JOB_STALLED_INTERVAL_MS: '1000' } as const;

/** The lock of a worker that is meant to die mid-job: short, so that another worker retakes the job in seconds. */
export const SHORT_LOCK = { JOB_LOCK_MS: '2000' } as const;

function credentials(access: RedisAccess): Record<string, string> {
  return {
    ...(access.username ? { REDIS_USERNAME: access.username } : {}),
    ...(access.password !== undefined ? { REDIS_PASSWORD: access.password } : {}),
  };
}

/** The variables that point a process at a cluster: its seeds, its ACL user, and TLS with its CA if it has one. */
export function clusterVars(cluster: TestRedisCluster): Record<string, string> {
  return {
    REDIS_CLUSTER_NODES: cluster.seeds,
    ...credentials(cluster.access),
    ...(cluster.caFile ? { REDIS_TLS: 'true', REDIS_TLS_CA_FILE: cluster.caFile } : {}),
  };
}

/** The variables that point a process at a Sentinel set: the sentinels, the name, the passwords, TLS if any. */
export function sentinelVars(set: TestRedisSentinelSet): Record<string, string> {
  return {
    REDIS_SENTINELS: set.sentinels,
    REDIS_SENTINEL_NAME: set.name,
    ...(set.sentinelPassword !== undefined ? { REDIS_SENTINEL_PASSWORD: set.sentinelPassword } : {}),
    ...credentials(set.access),
    ...(set.caFile ? { REDIS_TLS: 'true', REDIS_TLS_CA_FILE: set.caFile } : {}),
  };
}

/** The variables that point a process at a TLS node: a `rediss://user:password@` URL and the CA to trust. */
export function tlsNodeVars(node: TestTlsRedis): Record<string, string> {
  return { REDIS_URL: node.url, REDIS_TLS_CA_FILE: node.caFile };
}

/** Two built API processes and a built worker on one topology, started together and reused by a file's tests. */
export interface Deployment {
  readonly env: Record<string, string>;
  readonly a: ApiUnderTest;
  readonly b: ApiUnderTest;
  /** The worker that runs jobs now (a test may replace it). */
  worker: ProcessUnderTest;
  /** Every worker this deployment started, alive or not, in order (their logs tell which job each finished). */
  readonly workers: ProcessUnderTest[];
  /** Starts one more worker (at debug level, so that it logs each job it finishes) and waits until it is ready. */
  startWorker(overrides?: Record<string, string>): Promise<ProcessUnderTest>;
  /** Kills every process it started. */
  stop(): Promise<void>;
}

/**
 * The environment of a deployment: the test defaults, the topology's variables, a key prefix of its own, a
 * short Redis command timeout (a request meets a dead primary for one second, not two) and `overrides`.
 */
export function deploymentEnv(
  topology: Record<string, string>,
  prefix: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return { ...BASE_ENV, LOG_LEVEL: 'info', REDIS_KEY_PREFIX: prefix, REDIS_COMMAND_TIMEOUT_MS: '1000', ...topology, ...overrides };
}

async function ready(url: string): Promise<boolean> {
  return fetch(url).then(
    (res) => res.status === 200,
    () => false,
  );
}

/** Starts the two APIs and a worker with `env` and waits until all three say they are ready. */
export async function startDeployment(env: Record<string, string>): Promise<Deployment> {
  const workers: ProcessUnderTest[] = [];
  const startWorker = async (overrides: Record<string, string> = {}): Promise<ProcessUnderTest> => {
    const worker = await startWorkerProcess({ ...env, LOG_LEVEL: 'debug', ...WORKER_TIMING, ...overrides });
    workers.push(worker);
    await waitFor(() => ready(`http://127.0.0.1:${worker.metricsPort}/readyz`), { timeoutMs: 20_000, what: 'the worker to be ready' });
    return worker;
  };
  const apis: ApiUnderTest[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all([...apis, ...workers].map((process) => process.kill()));
  };
  try {
    const startApi = async (): Promise<ApiUnderTest> => {
      const api = await startApiProcess(env);
      apis.push(api);
      return api;
    };
    const [a, b, worker] = await Promise.all([startApi(), startApi(), startWorker()]);
    for (const api of [a, b])
      await waitFor(() => ready(`${api.baseUrl}/readyz`), { timeoutMs: 20_000, what: `the API on ${api.port} to be ready` });
    return { env, a, b, worker, workers, startWorker, stop };
  } catch (error) {
    const output = [...apis, ...workers]
      .map((process) => process.proc.stdout().slice(-3000) + process.proc.stderr().slice(-3000))
      .join('\n---\n');
    await stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
}

/** How many times each job id appears in a worker's "job succeeded" log lines, over every given worker. */
export function successesByJob(workers: readonly ProcessUnderTest[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const worker of workers) {
    for (const line of worker.logLines()) {
      if (line.msg === 'job succeeded' && typeof line.job_id === 'string') counts.set(line.job_id, (counts.get(line.job_id) ?? 0) + 1);
    }
  }
  return counts;
}

/** The sum, over the live workers given, of `connector_jobs_completed_total{outcome="succeeded"}`. */
export async function completedTotal(workers: readonly ProcessUnderTest[]): Promise<number> {
  let total = 0;
  for (const worker of workers) {
    if (worker.proc.child.exitCode !== null || worker.proc.child.signalCode !== null) continue;
    const page = await (await fetch(`http://127.0.0.1:${worker.metricsPort}/metrics`)).text();
    total += parseExposition(page)
      .samples.filter((sample) => sample.name === 'connector_jobs_completed_total' && sample.labels.outcome === 'succeeded')
      .reduce((sum, sample) => sum + sample.value, 0);
  }
  return total;
}

/** A subject's usage as `GET /v1/me` shows it. */
export async function usageOf(
  api: ApiUnderTest,
  token: string,
): Promise<{ jobs_charged: number; credits_spent: number; credits_refunded: number }> {
  const me = await api.call('GET', '/v1/me', { token });
  expect(me.status, me.text).to.equal(200);
  return me.body.usage;
}

/** Whether a spawned process is still running. */
export function running(process: ProcessUnderTest): boolean {
  return process.proc.child.exitCode === null && process.proc.child.signalCode === null;
}
