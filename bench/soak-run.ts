import { freePort } from '../test/testkit/free-port';
import { loadRunEnv } from '../test/testkit/load-run-env';
import { mixedTraffic, type TrafficOutcome } from '../test/testkit/mixed-traffic';
import { answers, type NodeProcess, setLogDir, startNode } from '../test/testkit/node-process';
import { round, startRedis } from './bench-processes';
import { percentile } from './job-load';
import { type MemorySample, scrapeMemory } from './process-metrics';
import { leastSquares, type Trend } from './trend';

export interface SoakOptions {
  /** Where the processes' logs go (and heap snapshots, when asked for). */
  dir: string;
  seconds: number;
  /** Memory is read from both processes' /metrics this often. */
  sampleSeconds: number;
  /** p99 latency is computed per window of this length. */
  windowSeconds: number;
  /** Samples and windows before this are the warm-up: left out of the trends. */
  warmupSeconds: number;
  ratePerSecond: number;
  clients: number;
  /** PLACEHOLDER_JOB_MS. */
  jobMs: number;
  /** Extra Node flags for the worker and the API (e.g. `--heapsnapshot-signal=SIGUSR2`). */
  workerNodeArgs?: string[];
  apiNodeArgs?: string[];
  /** Called at every sample (seconds since the start), for progress and for snapshots taken by the caller. */
  onSample?: (sample: SoakSample, pids: { api: number; worker: number }) => Promise<void> | void;
}

/** One reading of both processes. */
export interface SoakSample {
  /** Seconds since the traffic started. */
  t: number;
  api: MemorySample;
  worker: MemorySample;
}

/** p99 (and p50) of the answers that ended in one window. */
export interface LatencyWindow {
  fromS: number;
  toS: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
}

/** What a soak measured; the trends are over the samples after the warm-up, in MB per minute. */
export interface SoakMeasurement {
  samples: SoakSample[];
  windows: LatencyWindow[];
  trends: { apiRss: Trend; apiHeap: Trend; workerRss: Trend; workerHeap: Trend; p99: Trend };
  traffic: {
    sent: number;
    statuses: Record<string, number>;
    errors: Record<string, number>;
    wrongAnswers: number;
    jobsAccepted: number;
    jobsSucceeded: number;
  };
}

/** What a soak has started, stopped newest first whatever happens (the processes before their Redis). */
const active: Array<() => Promise<void>> = [];

/** Stops whatever a soak still runs (its own `finally` does; a script's watchdog calls it too). */
export async function stopSoak(): Promise<void> {
  for (const stop of active.splice(0).reverse()) await stop();
}

/**
 * A soak: one private Redis, the built API and worker (production's Node flags), and the mixed traffic of the
 * rolling restart (`mixed-traffic.ts`) sent straight to the API at a fixed rate for `seconds`. Both processes'
 * resident memory and heap are read from their own /metrics every `sampleSeconds`, and the answers' p99 is
 * taken per window; the trends are least-squares lines over what follows the warm-up.
 */
export async function runSoak(options: SoakOptions): Promise<SoakMeasurement> {
  setLogDir(options.dir);
  try {
    const redis = await startRedis();
    active.push(redis.stop);
    const pair = await startPair(options, redis.url);
    const tokens = await linkSubjects(pair.base);
    const traffic = mixedTraffic({
      baseUrl: pair.base,
      tokens,
      clients: options.clients,
      ratePerSecond: options.ratePerSecond,
      maxRequests: Math.ceil(options.ratePerSecond * options.seconds * 1.1),
      maxMs: options.seconds * 1000,
    });
    const samples = await sampleOnSchedule(options, pair);
    traffic.stop();
    const outcome = await traffic.finished;
    const jobsSucceeded = await succeededJobs(`http://127.0.0.1:${pair.workerMetrics}/metrics`, outcome.accepted.size);
    return measurement(options, samples, outcome, jobsSucceeded);
  } finally {
    await stopSoak();
  }
}

const LINK_SECRET = 'soak-link-secret-0123456789abcdef';

/** The running API and worker: the API's address, the metrics ports, the process ids. */
interface SoakPair {
  base: string;
  apiMetrics: number;
  workerMetrics: number;
  pids: { api: number; worker: number };
}

/** The built API and worker on one Redis, each ready. */
async function startPair(options: SoakOptions, redisUrl: string): Promise<SoakPair> {
  const env = loadRunEnv('soak', LINK_SECRET, redisUrl, options.jobMs);
  const start = async (
    name: string,
    entry: string,
    extra: Record<string, string>,
    probe: string,
    nodeArgs: string[],
  ): Promise<NodeProcess> => {
    const proc = await startNode(name, entry, { ...env, ...extra }, () => answers(probe), nodeArgs);
    active.push(proc.stop);
    return proc;
  };
  const [port, apiMetrics, workerMetrics] = [await freePort(), await freePort(), await freePort()];
  const base = `http://127.0.0.1:${port}`;
  const api = await start(
    'api',
    'api/main.js',
    { PORT: String(port), METRICS_PORT: String(apiMetrics) },
    `${base}/readyz`,
    options.apiNodeArgs ?? [],
  );
  const worker = await start(
    'worker',
    'worker/main.js',
    { METRICS_PORT: String(workerMetrics) },
    `http://127.0.0.1:${workerMetrics}/readyz`,
    options.workerNodeArgs ?? [],
  );
  return { base, apiMetrics, workerMetrics, pids: { api: api.child.pid!, worker: worker.child.pid! } };
}

/** Three subjects linked; their bearer tokens. */
async function linkSubjects(base: string): Promise<string[]> {
  const tokens: string[] = [];
  for (let s = 0; s < 3; s++) {
    const linked = await fetch(`${base}/v1/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-link-secret': LINK_SECRET },
      body: JSON.stringify({ subject: `soak-${s}` }),
    });
    if (linked.status !== 201) throw new Error(`POST /v1/link answered ${linked.status}`);
    tokens.push(((await linked.json()) as { token: string }).token);
  }
  return tokens;
}

/** Samples on a fixed schedule from the traffic's start (a slow scrape delays only itself). */
async function sampleOnSchedule(options: SoakOptions, pair: SoakPair): Promise<SoakSample[]> {
  const read = async (t: number): Promise<SoakSample> => {
    const [apiMemory, workerMemory] = await Promise.all([
      scrapeMemory(`http://127.0.0.1:${pair.apiMetrics}/metrics`),
      scrapeMemory(`http://127.0.0.1:${pair.workerMetrics}/metrics`),
    ]);
    return { t, api: apiMemory, worker: workerMemory };
  };
  const samples: SoakSample[] = [];
  const startedAt = performance.now();
  for (let t = 0; t <= options.seconds; t += options.sampleSeconds) {
    const wait = startedAt + t * 1000 - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sample = await read(t);
    samples.push(sample);
    await options.onSample?.(sample, pair.pids);
  }
  return samples;
}

/** The samples rounded, the latency windows, the trends after the warm-up, and the traffic's counts. */
function measurement(options: SoakOptions, samples: SoakSample[], outcome: TrafficOutcome, jobsSucceeded: number): SoakMeasurement {
  const after = samples.filter((sample) => sample.t >= options.warmupSeconds);
  const perMinute = (pick: (sample: SoakSample) => number) => leastSquares(after.map((sample) => ({ x: sample.t / 60, y: pick(sample) })));
  const windows = latencyWindows(outcome, options.seconds, options.windowSeconds);
  return {
    samples: samples.map((s) => ({ t: s.t, api: roundSample(s.api), worker: roundSample(s.worker) })),
    windows,
    trends: {
      apiRss: perMinute((s) => s.api.rssMb),
      apiHeap: perMinute((s) => s.api.heapUsedMb),
      workerRss: perMinute((s) => s.worker.rssMb),
      workerHeap: perMinute((s) => s.worker.heapUsedMb),
      p99: leastSquares(windows.filter((w) => w.fromS >= options.warmupSeconds).map((w) => ({ x: w.fromS / 60, y: w.p99Ms }))),
    },
    traffic: {
      sent: outcome.sent,
      statuses: outcome.statuses,
      errors: outcome.errors,
      wrongAnswers: outcome.wrongAnswers.length,
      jobsAccepted: outcome.accepted.size,
      jobsSucceeded,
    },
  };
}

function roundSample(sample: MemorySample): MemorySample {
  return { rssMb: round(sample.rssMb, 2), heapUsedMb: round(sample.heapUsedMb, 2) };
}

/** The answers' p50 and p99 per window of `windowSeconds`, by when each answer ended. */
export function latencyWindows(outcome: Pick<TrafficOutcome, 'latency'>, seconds: number, windowSeconds: number): LatencyWindow[] {
  const windows: LatencyWindow[] = [];
  for (let from = 0; from + windowSeconds <= seconds + 1e-9; from += windowSeconds) {
    const ms = outcome.latency.ms
      .filter((_, i) => outcome.latency.at[i] >= from * 1000 && outcome.latency.at[i] < (from + windowSeconds) * 1000)
      .sort((a, b) => a - b);
    windows.push({
      fromS: from,
      toS: from + windowSeconds,
      requests: ms.length,
      p50Ms: round(percentile(ms, 50), 2),
      p99Ms: round(percentile(ms, 99), 2),
    });
  }
  return windows;
}

/**
 * Waits (up to 60 s) until the worker's own count of succeeded jobs reaches the number accepted, and returns it:
 * a soak that loses or stalls jobs is no soak. Only the soak's traffic submits jobs to its private Redis.
 */
async function succeededJobs(workerMetrics: string, accepted: number): Promise<number> {
  const read = async () => {
    const text = await (await fetch(workerMetrics)).text();
    return Number(/^connector_jobs_completed_total\{operation="createJob",outcome="succeeded"\} (\S+)$/m.exec(text)?.[1] ?? 0);
  };
  const deadline = Date.now() + 60_000;
  let count = await read();
  while (count < accepted && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    count = await read();
  }
  return count;
}
