import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAX_GRANT_CREDITS } from '../shared/domain/credits/credit-rules';
import { freePort } from '../test/testkit/free-port';
import { answers, type NodeProcess, setLogDir, startNode } from '../test/testkit/node-process';
import { BENCH_DIST, fromInvocation } from './bench-processes';
import { PROFILE_DIR, SETTINGS } from './bench-settings';

const LINK_SECRET = 'bench-link-secret-0123456789abcdef';
const running: Array<{ stop(): Promise<void> }> = [];
/** The bases of the APIs started with `BILLING_MODE=prepaid`: {@link link} gives their subjects credits. */
const prepaidApis = new Set<string>();
/**
 * What {@link link} grants a subject on a prepaid API: the most one grant may move, a billion jobs at the bench
 * job's price of 1, so that no bench runs out and meets 402s instead of the path it measures.
 */
export const BENCH_GRANT_CREDITS = MAX_GRANT_CREDITS;

/** Remembers a started process (or anything else to stop) so that {@link stopAll} stops it, whatever happens to the run. */
export async function track<T extends { stop(): Promise<void> }>(proc: Promise<T>): Promise<T> {
  const ready = await proc;
  running.push(ready);
  return ready;
}

/** Stops every tracked process, newest first: the connector's processes close before the Redis they need. */
export async function stopAll(): Promise<void> {
  for (const proc of running.reverse().splice(0)) await proc.stop();
}

/**
 * Runs `run` with the log of every process it starts in a temporary directory of its own
 * (`connector-<name>-…`), then stops them all and removes the directory. When `run` fails the directory is
 * kept, for the processes' own account of it, and its path is printed (`runComparison` stops the processes).
 */
export async function inLogDir(name: string, run: (logDir: string) => Promise<void>): Promise<void> {
  const logDir = mkdtempSync(path.join(os.tmpdir(), `connector-${name}-`));
  setLogDir(logDir);
  try {
    await run(logDir);
  } catch (error) {
    process.stderr.write(`the processes' logs are kept in ${logDir}\n`);
    throw error;
  }
  await stopAll();
  rmSync(logDir, { recursive: true, force: true });
}

/**
 * The Redis variables of a connector process, exactly as an operator sets them: `REDIS_URL`, or
 * `REDIS_CLUSTER_NODES` with `JOB_QUEUE_SHARDS`, and a key prefix when several runs share a Redis.
 */
export type RedisEnv = Record<string, string>;

/** {@link RedisEnv} of one node at `url`. */
export function oneNodeEnv(url: string, keyPrefix?: string): RedisEnv {
  return { REDIS_URL: url, ...(keyPrefix ? { REDIS_KEY_PREFIX: keyPrefix } : {}) };
}

/** The connector's environment for the bench: production defaults, the rate limit out of the way. */
async function connectorEnv(redis: RedisEnv | undefined): Promise<Record<string, string>> {
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
    ...redis,
  };
}

function profileArgs(): string[] {
  return PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', fromInvocation(PROFILE_DIR)] : [];
}

/** Another built tree to start an API from, with its own Node flags and Redis key prefix (`compare.ts`). */
export interface OtherBuild {
  root: string;
  nodeArgs: string[];
  keyPrefix: string;
  /** A cgroup's `cgroup.procs` to start the process in (`compare.ts --memory-limit`). */
  cgroupProcs?: string;
  /** Variables added to the process's environment (`compare.ts`: a traced build's OTEL_* variables). */
  env?: Record<string, string>;
}

/** A built API (`dist/api/main.js`) on Redis, or on the embedded backend without `redis`. */
export async function startApi(
  name: string,
  redis: RedisEnv | undefined,
  other?: OtherBuild,
  cgroupProcs?: string,
): Promise<{ proc: NodeProcess; base: string }> {
  const env: Record<string, string> = {
    ...(await connectorEnv(redis)),
    ...(other ? { REDIS_KEY_PREFIX: other.keyPrefix, ...other.env } : {}),
  };
  const base = `http://127.0.0.1:${env.PORT}`;
  if (env.BILLING_MODE === 'prepaid') prepaidApis.add(base);
  const proc = await track(
    startNode(
      name,
      'api/main.js',
      env,
      () => answers(`${base}/readyz`),
      [...profileArgs(), ...(other?.nodeArgs ?? [])],
      other?.root,
      other?.cgroupProcs ?? cgroupProcs,
    ),
  );
  return { proc, base };
}

/** The built worker (`dist/worker/main.js`), or another build's (`compare-drain.ts`), ready once its `/readyz` answers. */
export async function startWorker(redis: RedisEnv, name = 'worker', other?: OtherBuild, cgroupProcs?: string): Promise<NodeProcess> {
  const env: Record<string, string> = {
    ...(await connectorEnv(redis)),
    ...(other ? { REDIS_KEY_PREFIX: other.keyPrefix, ...other.env } : {}),
  };
  const ready = () => answers(`http://127.0.0.1:${env.METRICS_PORT}/readyz`);
  return track(
    startNode(
      name,
      'worker/main.js',
      env,
      ready,
      [...profileArgs(), ...(other?.nodeArgs ?? [])],
      other?.root,
      other?.cgroupProcs ?? cgroupProcs,
    ),
  );
}

/** The baseline for (a): `bench/bare-server.js` (`nodeArgs`: Node flags before it, as `allocations.ts` preloads its probe). */
export async function startBareServer(cgroupProcs?: string, nodeArgs: string[] = []): Promise<{ proc: NodeProcess; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/bare`;
  return {
    proc: await track(
      startNode('bare-server', 'bench/bare-server.js', { PORT: String(port) }, () => answers(url), nodeArgs, BENCH_DIST, cgroupProcs),
    ),
    url,
  };
}

/** The floor routes of `bench:floor` (`bench/floor-server.js`) on Redis: `/read`, `/replay` and `/job` under `base`. */
export async function startFloorServer(redis: RedisEnv, nodeArgs: string[] = profileArgs()): Promise<{ proc: NodeProcess; base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  return {
    proc: await track(
      startNode(
        'floor-server',
        'bench/floor-server.js',
        { ...redis, PORT: String(port) },
        () => answers(`${base}/read`),
        nodeArgs,
        BENCH_DIST,
      ),
    ),
    base,
  };
}

/**
 * The baseline for (g): `bench/bare-worker.js` on the queue `bare` under the prefix `bench-bare`; profiled beside the
 * connector's worker under `BENCH_CPU_PROF_DIR`, so that the two profiles can be set side by side.
 */
export async function startBareWorker(redis: RedisEnv, cgroupProcs?: string): Promise<NodeProcess> {
  const env = { ...redis, QUEUE_NAME: 'bare', QUEUE_PREFIX: 'bench-bare', WORKER_CONCURRENCY: String(SETTINGS.workerConcurrency) };
  return track(
    startNode(
      'bare-worker',
      'bench/bare-worker.js',
      env,
      async (output) => output().includes('ready'),
      profileArgs(),
      BENCH_DIST,
      cgroupProcs,
    ),
  );
}

/** POSTs JSON and returns the JSON answer; anything but 2xx fails the run. */
export async function post(url: string, headers: Record<string, string>, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

/**
 * Links `subject` through the dashboard's endpoint; returns the headers of an authenticated call. On an API
 * started with `BILLING_MODE=prepaid` it first grants the subject {@link BENCH_GRANT_CREDITS} (a metered API
 * refuses grants with 409), under a grant id of its own each time, so that every link adds to the balance.
 */
export async function link(base: string, subject = 'bench'): Promise<Record<string, string>> {
  const dashboard = { 'x-link-secret': LINK_SECRET };
  if (prepaidApis.has(base))
    await post(`${base}/v1/link/credits`, dashboard, { subject, credits: BENCH_GRANT_CREDITS, grant_id: `bench-${randomUUID()}` });
  const { token } = (await post(`${base}/v1/link`, dashboard, { subject })) as { token: string };
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
}
