import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { freePort } from './free-port';
import { answers, repoRoot, setLogDir, startNode, type NodeProcess } from './node-process';
import { startRedis } from './redis-node';
import { waitFor } from './wait-for';
import { startHaproxy } from './haproxy';
import { mixedTraffic, type SeenResponse, type TrafficOutcome } from './mixed-traffic';
import { judgeRollingRestart, type JobAccount, type Replacement, type RollingReport } from './rolling-report';
import { readWorkerLog } from './worker-log';

export { judgeRollingRestart, type RollingReport } from './rolling-report';

/** The settings a rolling restart takes from the chart (`charts/connector/values.yaml`), as its ConfigMap sets them. */
export interface ChartShutdown {
  /** SHUTDOWN_DELAY_MS: the API serves on, not ready, for this long after SIGTERM. */
  delayMs: number;
  /** SHUTDOWN_GRACE_MS: the drain budget of either process. */
  graceMs: number;
  workerConcurrency: number;
}

/** Reads the chart's values, so that the rolling restart follows the chart when the chart changes. */
export function chartShutdown(): ChartShutdown {
  const values = YAML.parse(readFileSync(path.join(repoRoot(), 'charts', 'connector', 'values.yaml'), 'utf8'));
  return {
    delayMs: values.shutdown.delaySeconds * 1000,
    graceMs: values.shutdown.drainSeconds * 1000,
    workerConcurrency: values.config.workerConcurrency,
  };
}

export interface RollingOptions {
  /** Where the processes' logs, HAProxy's config and its admin socket go (a fresh temporary directory). */
  dir: string;
  /** Full rotations: every API, then every worker, replaced once per rotation. */
  rotations: number;
  replicas?: number;
  clients?: number;
  ratePerSecond?: number;
  subjects?: number;
  /** PLACEHOLDER_JOB_MS: how long a job runs (long enough that a stopped worker is caught with jobs running). */
  jobMs?: number;
  /** Overrides the chart's SHUTDOWN_DELAY_MS (to see what the delay buys: `--delay-ms 0`). */
  delayMs?: number;
  /** Called with HAProxy's address before the traffic starts (a test fetches the published document there). */
  beforeTraffic?: (baseUrl: string) => Promise<void>;
  /** Each answer the traffic and the final checks got, for an outside check. */
  onResponse?: (response: SeenResponse) => void;
  progress?: (line: string) => void;
}

const LINK_SECRET = 'rolling-link-secret-0123456789abcdef';

/** One process of the rotation: its handle, when and how it exited, where it logs. */
interface Member {
  proc: NodeProcess;
  port: number;
  metricsPort: number;
  slot: number;
  log: string;
  exited: Promise<{ code: number | string; at: number }>;
}

/** What a run has started, stopped newest first whatever happens: the processes before the Redis they need. */
const active: Array<() => Promise<void>> = [];

/** Stops whatever a rolling restart still runs (its own `finally` does; a script's watchdog calls it too). */
export async function stopEverything(): Promise<void> {
  for (const stop of active.splice(0).reverse()) await stop();
}

/**
 * A rolling restart behind HAProxy: one private Redis, `replicas` APIs and workers with the chart's shutdown
 * settings, steady mixed traffic through HAProxy, and every process replaced one at a time as a Deployment
 * does it (start the new one, wait until it is ready and HAProxy sends it traffic, SIGTERM the old one).
 * Every worker replica but the first runs with a grace shorter than a job (`SHUTDOWN_GRACE_MS` 1000 leaves
 * no drain time), so that its jobs are handed back at SIGTERM instead of finishing in it: both ways out of a
 * stopping worker are taken in every rotation. Returns every count; {@link judgeRollingRestart} says what failed.
 */
export async function runRollingRestart(options: RollingOptions): Promise<RollingReport> {
  const { dir, rotations, replicas = 2, clients = 12, ratePerSecond = 150, subjects = 3, jobMs = 500 } = options;
  const say = options.progress ?? (() => undefined);
  setLogDir(dir);
  const chart = { ...chartShutdown(), ...(options.delayMs === undefined ? {} : { delayMs: options.delayMs }) };
  const stops = active;
  const startedAt = Date.now();
  const ms = () => Date.now() - startedAt;
  let names = 0;

  const redis = await startRedis();
  stops.push(redis.stop);
  try {
    // Two slots per API replica: the new process of a replica starts in the slot its predecessor does not use.
    const slotPorts = await Promise.all(Array.from({ length: 2 * replicas }, () => freePort()));
    const haproxy = await startHaproxy(dir, slotPorts);
    stops.push(haproxy.stop);
    const base = {
      CONNECTOR_SECRET: 'rolling-connector-secret-0123456789abcdef',
      PUBLIC_URL: 'http://localhost:8787',
      DASHBOARD_URL: 'https://dashboard.example.com',
      LINK_SECRET,
      REDIS_URL: redis.url,
      LOG_LEVEL: 'info',
      // The chart's 120 a minute per token would answer most of this traffic 429 (which passes, but tests little).
      RATE_LIMIT_PER_MINUTE: '1000000',
      PLACEHOLDER_JOB_MS: String(jobMs),
      WORKER_CONCURRENCY: String(chart.workerConcurrency),
      SHUTDOWN_DELAY_MS: String(chart.delayMs),
      SHUTDOWN_GRACE_MS: String(chart.graceMs),
    };

    const start = async (role: 'api' | 'worker', replica: number, slot: number, env: Record<string, string>): Promise<Member> => {
      const name = `${role}-${replica}-${++names}`;
      const metricsPort = await freePort();
      const port = role === 'api' ? slotPorts[slot] : 0;
      const full = {
        ...base,
        ...env,
        METRICS_PORT: String(metricsPort),
        ...(role === 'api' ? { PORT: String(port), TRUST_PROXY: '1' } : {}),
      };
      const probe = role === 'api' ? `http://127.0.0.1:${port}/readyz` : `http://127.0.0.1:${metricsPort}/readyz`;
      const proc = await startNode(name, `${role}/main.js`, full, () => answers(probe));
      stops.push(proc.stop);
      const exited = new Promise<{ code: number | string; at: number }>((resolve) => {
        if (proc.child.exitCode !== null) resolve({ code: proc.child.exitCode, at: ms() });
        proc.child.once('exit', (code, signal) => resolve({ code: code ?? signal ?? -1, at: ms() }));
      });
      return { proc, port, metricsPort, slot, log: path.join(dir, `${name}.log`), exited };
    };
    const upInHaproxy = (slot: number) =>
      waitFor(async () => (await haproxy.slotStates())[slot] === 'UP', {
        timeoutMs: 15_000,
        intervalMs: 50,
        what: `HAProxy to send traffic to slot ${slot}`,
      });
    const workerEnv = (replica: number) => ({ LOG_LEVEL: 'debug', ...(replica > 0 ? { SHUTDOWN_GRACE_MS: '1000' } : {}) });

    const apis: Member[] = [];
    for (let r = 0; r < replicas; r++) apis.push(await start('api', r, r, {}));
    for (const api of apis) await upInHaproxy(api.slot);
    const workers: Member[] = [];
    for (let r = 0; r < replicas; r++) workers.push(await start('worker', r, 0, workerEnv(r)));
    const retired: Array<{ role: 'api' | 'worker'; member: Member; replacement: Replacement }> = [];
    /** Records a process's replacement, then sends it SIGTERM, as the Deployment does once its successor is up. */
    const retire = (role: 'api' | 'worker', rotation: number, replica: number, old: Member, startAt: number, readyAt: number): void => {
      const [readyMs, inRotationMs] = [readyAt - startAt, ms() - startAt];
      retired.push({
        role,
        member: old,
        replacement: { role, replica, rotation, startedMs: startAt, readyMs, inRotationMs, signalledAt: ms() },
      });
      old.proc.child.kill('SIGTERM');
      say(`rotation ${rotation}: ${role === 'api' ? 'API' : 'worker'} ${replica} replaced (ready in ${readyAt - startAt} ms)`);
    };
    say(
      `${replicas} APIs behind HAProxy (${haproxy.url}), ${replicas} workers; SHUTDOWN_DELAY_MS=${chart.delayMs}, SHUTDOWN_GRACE_MS=${chart.graceMs}`,
    );

    const tokens: string[] = [];
    for (let s = 0; s < subjects; s++) {
      const linked = await call(
        haproxy.url,
        'POST',
        '/v1/link',
        { 'x-link-secret': LINK_SECRET, 'content-type': 'application/json' },
        JSON.stringify({ subject: `rolling-${s}` }),
        options.onResponse,
      );
      if (linked.status !== 201) throw new Error(`POST /v1/link answered ${linked.status}: ${linked.text}`);
      tokens.push(JSON.parse(linked.text).token);
    }
    await options.beforeTraffic?.(haproxy.url);
    const traffic = mixedTraffic({
      baseUrl: haproxy.url,
      tokens,
      clients,
      ratePerSecond,
      maxRequests: 2_000_000,
      maxMs: 600_000,
      onResponse: options.onResponse,
    });
    try {
      await waitFor(async () => traffic.outcome.accepted.size >= 10, {
        timeoutMs: 30_000,
        intervalMs: 50,
        what: 'the traffic to have jobs accepted',
      });

      for (let rotation = 1; rotation <= rotations; rotation++) {
        for (let r = 0; r < replicas; r++) {
          const old = apis[r];
          const slot = (old.slot + replicas) % (2 * replicas);
          // The slot's previous process (two generations back) must be gone before its port is reused.
          await retired.find((entry) => entry.role === 'api' && entry.member.slot === slot)?.member.exited;
          const startAt = ms();
          const fresh = await start('api', r, slot, {});
          const readyAt = ms();
          await upInHaproxy(slot);
          retire('api', rotation, r, old, startAt, readyAt);
          apis[r] = fresh;
        }
        for (let r = 0; r < replicas; r++) {
          const old = workers[r];
          const startAt = ms();
          const fresh = await start('worker', r, 0, workerEnv(r));
          const readyAt = ms();
          // Caught mid-job: what happens to running jobs is the point. (A deadline, not a hang, if none comes.)
          await waitFor(async () => hasFreshJob(old.log, jobMs / 2), {
            timeoutMs: 15_000,
            intervalMs: 50,
            what: `worker ${r} to be running a job`,
          }).catch(() => undefined);
          retire('worker', rotation, r, old, startAt, readyAt);
          workers[r] = fresh;
        }
      }
      // The traffic runs on until the last replaced process has left, so that it covers every drain.
      for (const { member, replacement } of retired) {
        const exit = await member.exited;
        replacement.exitCode = exit.code;
        replacement.exitMs = exit.at - replacement.signalledAt;
      }
    } finally {
      traffic.stop();
    }
    const outcome = await traffic.finished;
    say(`traffic: ${outcome.sent} requests; waiting for ${outcome.accepted.size} jobs to succeed`);

    const jobs = await finalJobs(haproxy.url, tokens, outcome, options.onResponse);
    const charged = await Promise.all(
      tokens.map(async (token) => {
        const me = await call(haproxy.url, 'GET', '/v1/me', { authorization: `Bearer ${token}` }, undefined, options.onResponse);
        return Number(JSON.parse(me.text).usage?.jobs_charged);
      }),
    );
    // The current processes stop too, so that every log is complete before it is read.
    for (const member of [...apis, ...workers]) member.proc.child.kill('SIGTERM');
    await Promise.all([...apis, ...workers].map((member) => member.exited));

    const logs = [...retired.filter((entry) => entry.role === 'worker').map((entry) => entry.member), ...workers].map((member) => ({
      member,
      log: readWorkerLog(member.log),
    }));
    for (const entry of retired.filter((e) => e.role === 'worker')) {
      const log = logs.find((l) => l.member === entry.member)!.log;
      entry.replacement.runningAtSignal = log.runningAtSignal;
      entry.replacement.finishedInDrain = log.finishedAfterSignal;
      entry.replacement.handedBack = log.handedBack;
      entry.replacement.finishedElsewhere = log.handedBack.filter((id) =>
        logs.some((other) => other.log !== log && other.log.succeeded.includes(id)),
      );
    }
    const completions = new Map<string, number>();
    for (const { log } of logs) for (const id of log.succeeded) completions.set(id, (completions.get(id) ?? 0) + 1);
    const account: JobAccount = {
      accepted: outcome.accepted.size,
      succeeded: jobs.succeeded,
      notSucceeded: jobs.notSucceeded,
      completedOnce: [...outcome.accepted.keys()].filter((id) => completions.get(id) === 1).length,
      completedTwiceOrMore: [...completions].filter(([, n]) => n > 1).map(([id]) => id),
      neverCompleted: [...outcome.accepted.keys()].filter((id) => !completions.has(id)),
      completedButNotAccepted: [...completions.keys()].filter((id) => !outcome.accepted.has(id)),
      chargedPerSubject: tokens.map((_, s) => ({
        subject: `rolling-${s}`,
        accepted: [...outcome.accepted.values()].filter((job) => job.subject === s).length,
        jobsCharged: charged[s],
      })),
    };
    return {
      settings: {
        replicas,
        rotations,
        clients,
        ratePerSecond,
        subjects,
        jobMs,
        ...chart,
        handBackGraceMs: 1000,
        healthCheck: 'GET /readyz every 500 ms, fall 2, rise 2',
      },
      durationMs: ms(),
      replacements: retired.map((entry) => entry.replacement),
      traffic: summarise(outcome),
      jobs: account,
    };
  } finally {
    await stopEverything();
  }
}

/**
 * True when the worker logging to `log` runs a job that started less than `withinMs` ago, so that it is still
 * running when the signal follows a moment later.
 */
function hasFreshJob(log: string, withinMs: number): boolean {
  const started = new Map<string, number>();
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; job_id?: string; time?: string };
    if (entry.msg === 'job started' && entry.job_id) started.set(entry.job_id, Date.parse(entry.time ?? ''));
    else if (entry.msg === 'job succeeded' && entry.job_id) started.delete(entry.job_id);
  }
  return [...started.values()].some((at) => Date.now() - at < withinMs);
}

function summarise(outcome: TrafficOutcome): RollingReport['traffic'] {
  return {
    sent: outcome.sent,
    statuses: outcome.statuses,
    byKind: outcome.byKind,
    errors: outcome.errors,
    wrongAnswers: outcome.wrongAnswers,
  };
}

/** One request with fetch (its own keep-alive pool), reported to `onResponse` as the traffic's answers are. */
async function call(
  base: string,
  method: string,
  route: string,
  headers: Record<string, string>,
  body: string | undefined,
  onResponse?: (response: SeenResponse) => void,
): Promise<SeenResponse> {
  const response = await fetch(`${base}${route}`, { method, headers, body });
  const seen: SeenResponse = {
    kind: 'me',
    method,
    path: route,
    status: response.status,
    headers: Object.fromEntries(response.headers),
    text: await response.text(),
  };
  onResponse?.(seen);
  return seen;
}

/** Polls every accepted job (through HAProxy, as its owner) until each is terminal; counts the succeeded ones. */
async function finalJobs(
  base: string,
  tokens: string[],
  outcome: TrafficOutcome,
  onResponse?: (response: SeenResponse) => void,
): Promise<{ succeeded: number; notSucceeded: string[] }> {
  const pending = new Map(outcome.accepted);
  const final = new Map<string, string>();
  await waitFor(
    async () => {
      const batch = [...pending].slice(0, 50);
      await Promise.all(
        batch.map(async ([id, job]) => {
          const answer = await call(
            base,
            'GET',
            `/v1/jobs/${id}`,
            { authorization: `Bearer ${tokens[job.subject]}` },
            undefined,
            onResponse,
          );
          const status = answer.status === 200 ? (JSON.parse(answer.text).status as string) : `http ${answer.status}`;
          if (status === 'succeeded' || status === 'failed') {
            final.set(id, status);
            pending.delete(id);
          }
        }),
      );
      return pending.size === 0;
    },
    { timeoutMs: 60_000, intervalMs: 50, what: 'every accepted job to finish' },
  ).catch(() => undefined);
  const notSucceeded = [...outcome.accepted.keys()].filter((id) => final.get(id) !== 'succeeded');
  return { succeeded: outcome.accepted.size - notSucceeded.length, notSucceeded };
}
