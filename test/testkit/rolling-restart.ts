import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { freePort } from './free-port';
import { type Haproxy, startHaproxy } from './haproxy';
import { loadRunEnv } from './load-run-env';
import { mixedTraffic, type SeenResponse, type TrafficOutcome } from './mixed-traffic';
import { answers, type NodeProcess, repoRoot, setLogDir, startNode } from './node-process';
import { startRedis } from './redis-node';
import { type JobAccount, judgeRollingRestart, type Replacement, type RollingReport } from './rolling-report';
import { waitFor } from './wait-for';
import { readWorkerLog, type WorkerJobLog } from './worker-log';

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

/** The options with their defaults, and the chart's shutdown settings (the delay overridden if asked). */
interface Settings {
  dir: string;
  rotations: number;
  replicas: number;
  clients: number;
  ratePerSecond: number;
  subjects: number;
  jobMs: number;
  chart: ChartShutdown;
  say: (line: string) => void;
  onResponse?: (response: SeenResponse) => void;
}

type Role = 'api' | 'worker';

/** A replaced process: its record in the report, and its handle until it has exited. */
interface Retired {
  role: Role;
  member: Member;
  replacement: Replacement;
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
  const settings = settingsOf(options);
  setLogDir(settings.dir);
  const startedAt = Date.now();
  const ms = () => Date.now() - startedAt;

  const redis = await startRedis();
  active.push(redis.stop);
  try {
    const fleet = await Fleet.open(settings, redis.url, ms);
    const tokens = await linkSubjects(fleet.haproxy.url, settings.subjects, settings.onResponse);
    await options.beforeTraffic?.(fleet.haproxy.url);
    const outcome = await rotateUnderTraffic(fleet, tokens);
    settings.say(`traffic: ${outcome.sent} requests; waiting for ${outcome.accepted.size} jobs to succeed`);
    const jobs = await accountJobs(fleet, tokens, outcome);
    return {
      settings: reportedSettings(settings),
      durationMs: ms(),
      replacements: fleet.retired.map((entry) => entry.replacement),
      traffic: summarise(outcome),
      jobs,
    };
  } finally {
    await stopEverything();
  }
}

function settingsOf(options: RollingOptions): Settings {
  const { dir, rotations, replicas = 2, clients = 12, ratePerSecond = 150, subjects = 3, jobMs = 500 } = options;
  const chart = { ...chartShutdown(), ...(options.delayMs === undefined ? {} : { delayMs: options.delayMs }) };
  const say = options.progress ?? (() => undefined);
  return { dir, rotations, replicas, clients, ratePerSecond, subjects, jobMs, chart, say, onResponse: options.onResponse };
}

function reportedSettings(settings: Settings): RollingReport['settings'] {
  const { replicas, rotations, clients, ratePerSecond, subjects, jobMs, chart } = settings;
  return {
    replicas,
    rotations,
    clients,
    ratePerSecond,
    subjects,
    jobMs,
    ...chart,
    handBackGraceMs: 1000,
    healthCheck: 'GET /readyz every 500 ms, fall 2, rise 2',
  };
}

/** The environment every process of the run shares. */
function baseEnv(settings: Settings, redisUrl: string): Record<string, string> {
  return {
    ...loadRunEnv('rolling', LINK_SECRET, redisUrl, settings.jobMs),
    WORKER_CONCURRENCY: String(settings.chart.workerConcurrency),
    SHUTDOWN_DELAY_MS: String(settings.chart.delayMs),
    SHUTDOWN_GRACE_MS: String(settings.chart.graceMs),
  };
}

/** Every replica but the first hands its jobs back at SIGTERM (a grace shorter than a job). */
const workerEnv = (replica: number) => ({ LOG_LEVEL: 'debug', ...(replica > 0 ? { SHUTDOWN_GRACE_MS: '1000' } : {}) });

/** The APIs behind HAProxy and the workers of a run, the current ones and the replaced ones. */
class Fleet {
  readonly apis: Member[] = [];
  readonly workers: Member[] = [];
  readonly retired: Retired[] = [];
  private names = 0;

  private constructor(
    readonly settings: Settings,
    private readonly ms: () => number,
    readonly haproxy: Haproxy,
    private readonly slotPorts: readonly number[],
    private readonly base: Record<string, string>,
  ) {}

  /** HAProxy, then every API (each up in HAProxy), then every worker. */
  static async open(settings: Settings, redisUrl: string, ms: () => number): Promise<Fleet> {
    const { replicas, chart } = settings;
    // Two slots per API replica: the new process of a replica starts in the slot its predecessor does not use.
    const slotPorts = await Promise.all(Array.from({ length: 2 * replicas }, () => freePort()));
    const haproxy = await startHaproxy(settings.dir, slotPorts);
    active.push(haproxy.stop);
    const fleet = new Fleet(settings, ms, haproxy, slotPorts, baseEnv(settings, redisUrl));
    for (let r = 0; r < replicas; r++) fleet.apis.push(await fleet.start('api', r, r, {}));
    for (const api of fleet.apis) await fleet.upInHaproxy(api.slot);
    for (let r = 0; r < replicas; r++) fleet.workers.push(await fleet.start('worker', r, 0, workerEnv(r)));
    settings.say(
      `${replicas} APIs behind HAProxy (${haproxy.url}), ${replicas} workers; SHUTDOWN_DELAY_MS=${chart.delayMs}, SHUTDOWN_GRACE_MS=${chart.graceMs}`,
    );
    return fleet;
  }

  /** Every API, then every worker, replaced once. */
  async rotate(rotation: number): Promise<void> {
    for (let r = 0; r < this.settings.replicas; r++) await this.replaceApi(rotation, r);
    for (let r = 0; r < this.settings.replicas; r++) await this.replaceWorker(rotation, r);
  }

  /** Waits for every replaced process to exit, and records how and when. */
  async recordExits(): Promise<void> {
    for (const { member, replacement } of this.retired) {
      const exit = await member.exited;
      replacement.exitCode = exit.code;
      replacement.exitMs = exit.at - replacement.signalledAt;
    }
  }

  /** The current processes stop too, so that every log is complete before it is read. */
  async stopCurrent(): Promise<void> {
    const current = [...this.apis, ...this.workers];
    for (const member of current) member.proc.child.kill('SIGTERM');
    await Promise.all(current.map((member) => member.exited));
  }

  /** Every worker's log, the replaced ones first; fills in what each replaced worker did with its running jobs. */
  readWorkerLogs(): WorkerJobLog[] {
    const retiredWorkers = this.retired.filter((entry) => entry.role === 'worker');
    const logs = [...retiredWorkers.map((entry) => entry.member), ...this.workers].map((member) => ({
      member,
      log: readWorkerLog(member.log),
    }));
    for (const entry of retiredWorkers) {
      const log = logs.find((l) => l.member === entry.member)!.log;
      entry.replacement.runningAtSignal = log.runningAtSignal;
      entry.replacement.finishedInDrain = log.finishedAfterSignal;
      entry.replacement.handedBack = log.handedBack;
      entry.replacement.finishedElsewhere = log.handedBack.filter((id) =>
        logs.some((other) => other.log !== log && other.log.succeeded.includes(id)),
      );
    }
    return logs.map((entry) => entry.log);
  }

  private async replaceApi(rotation: number, r: number): Promise<void> {
    const { replicas } = this.settings;
    const old = this.apis[r];
    const slot = (old.slot + replicas) % (2 * replicas);
    // The slot's previous process (two generations back) must be gone before its port is reused.
    await this.retired.find((entry) => entry.role === 'api' && entry.member.slot === slot)?.member.exited;
    const startAt = this.ms();
    const fresh = await this.start('api', r, slot, {});
    const readyAt = this.ms();
    await this.upInHaproxy(slot);
    this.retire('api', rotation, r, old, startAt, readyAt);
    this.apis[r] = fresh;
  }

  private async replaceWorker(rotation: number, r: number): Promise<void> {
    const old = this.workers[r];
    const startAt = this.ms();
    const fresh = await this.start('worker', r, 0, workerEnv(r));
    const readyAt = this.ms();
    // Caught mid-job: what happens to running jobs is the point. (A deadline, not a hang, if none comes.)
    await waitFor(async () => hasFreshJob(old.log, this.settings.jobMs / 2), {
      timeoutMs: 15_000,
      intervalMs: 50,
      what: `worker ${r} to be running a job`,
    }).catch(() => undefined);
    this.retire('worker', rotation, r, old, startAt, readyAt);
    this.workers[r] = fresh;
  }

  private async start(role: Role, replica: number, slot: number, env: Record<string, string>): Promise<Member> {
    const name = `${role}-${replica}-${++this.names}`;
    const metricsPort = await freePort();
    const port = role === 'api' ? this.slotPorts[slot] : 0;
    const full = {
      ...this.base,
      ...env,
      METRICS_PORT: String(metricsPort),
      ...(role === 'api' ? { PORT: String(port), TRUST_PROXY: '1' } : {}),
    };
    const probe = role === 'api' ? `http://127.0.0.1:${port}/readyz` : `http://127.0.0.1:${metricsPort}/readyz`;
    const proc = await startNode(name, `${role}/main.js`, full, () => answers(probe));
    active.push(proc.stop);
    const exited = new Promise<{ code: number | string; at: number }>((resolve) => {
      if (proc.child.exitCode !== null) resolve({ code: proc.child.exitCode, at: this.ms() });
      proc.child.once('exit', (code, signal) => resolve({ code: code ?? signal ?? -1, at: this.ms() }));
    });
    return { proc, port, metricsPort, slot, log: path.join(this.settings.dir, `${name}.log`), exited };
  }

  private async upInHaproxy(slot: number): Promise<void> {
    await waitFor(async () => (await this.haproxy.slotStates())[slot] === 'UP', {
      timeoutMs: 15_000,
      intervalMs: 50,
      what: `HAProxy to send traffic to slot ${slot}`,
    });
  }

  /** Records a process's replacement, then sends it SIGTERM, as the Deployment does once its successor is up. */
  private retire(role: Role, rotation: number, replica: number, old: Member, startAt: number, readyAt: number): void {
    const [readyMs, inRotationMs] = [readyAt - startAt, this.ms() - startAt];
    this.retired.push({
      role,
      member: old,
      replacement: { role, replica, rotation, startedMs: startAt, readyMs, inRotationMs, signalledAt: this.ms() },
    });
    old.proc.child.kill('SIGTERM');
    this.settings.say(`rotation ${rotation}: ${role === 'api' ? 'API' : 'worker'} ${replica} replaced (ready in ${readyAt - startAt} ms)`);
  }
}

/** Links one subject per token through HAProxy; returns their bearer tokens. */
async function linkSubjects(base: string, subjects: number, onResponse?: (response: SeenResponse) => void): Promise<string[]> {
  const tokens: string[] = [];
  for (let s = 0; s < subjects; s++) {
    const linked = await call(
      base,
      'POST',
      '/v1/link',
      { 'x-link-secret': LINK_SECRET, 'content-type': 'application/json' },
      JSON.stringify({ subject: `rolling-${s}` }),
      onResponse,
    );
    if (linked.status !== 201) throw new Error(`POST /v1/link answered ${linked.status}: ${linked.text}`);
    tokens.push(JSON.parse(linked.text).token);
  }
  return tokens;
}

/** Steady traffic through HAProxy while every rotation runs; it goes on until the last replaced process has left, so that it covers every drain. */
async function rotateUnderTraffic(fleet: Fleet, tokens: string[]): Promise<TrafficOutcome> {
  const { clients, ratePerSecond, rotations, onResponse } = fleet.settings;
  const traffic = mixedTraffic({
    baseUrl: fleet.haproxy.url,
    tokens,
    clients,
    ratePerSecond,
    maxRequests: 2_000_000,
    maxMs: 600_000,
    onResponse,
  });
  try {
    await waitFor(async () => traffic.outcome.accepted.size >= 10, {
      timeoutMs: 30_000,
      intervalMs: 50,
      what: 'the traffic to have jobs accepted',
    });
    for (let rotation = 1; rotation <= rotations; rotation++) await fleet.rotate(rotation);
    await fleet.recordExits();
  } finally {
    traffic.stop();
  }
  return traffic.finished;
}

/** Every accepted job's fate: its final status through the API, its completions in the workers' logs, the charges per subject. */
async function accountJobs(fleet: Fleet, tokens: string[], outcome: TrafficOutcome): Promise<JobAccount> {
  const { onResponse } = fleet.settings;
  const base = fleet.haproxy.url;
  const jobs = await finalJobs(base, tokens, outcome, onResponse);
  const charged = await Promise.all(
    tokens.map(async (token) => {
      const me = await call(base, 'GET', '/v1/me', { authorization: `Bearer ${token}` }, undefined, onResponse);
      return Number(JSON.parse(me.text).usage?.jobs_charged);
    }),
  );
  await fleet.stopCurrent();
  const completions = new Map<string, number>();
  for (const log of fleet.readWorkerLogs()) for (const id of log.succeeded) completions.set(id, (completions.get(id) ?? 0) + 1);
  return {
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
