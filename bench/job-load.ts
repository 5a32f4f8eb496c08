import { randomUUID } from 'node:crypto';
import { type JobsOptions, Queue } from 'bullmq';
import { toBullJobData } from '../shared/adapters/redis/bullmq-job-record';
import type { RedisClient } from '../shared/adapters/redis/redis-client';
import { GiveUp } from '../test/testkit/wait-for';
import { cpuTimeMs, round, waitUntil } from './bench-processes';
import { commandsProcessed, NodeMeter, type NodeWork } from './bench-redis';

/** How long a drain of `jobs` jobs took. */
export interface DrainFigure {
  jobs: number;
  seconds: number;
  jobsPerSecond: number;
  /** CPU per job, in microseconds, of the worker process and of redis-server (null where /proc is missing). */
  workerCpuUsPerJob: number | null;
  redisCpuUsPerJob: number | null;
  /** Commands Redis processed per job (script-internal ones included), the bench's polling excluded. */
  redisCommandsPerJob: number;
  /** Node by node (several nodes only): what each did during the drain, the bench's few polls included. */
  nodes?: NodeWork[];
}

/** Submit-to-succeeded latency of jobs submitted over HTTP at a steady rate. */
export interface LatencyFigure {
  ratePerSecond: number;
  seconds: number;
  jobs: number;
  /** From just before the POST is sent to the job's `finishedOn` in Redis. */
  submitToSucceededMs: { p50: number; p99: number; max: number };
  /** The POST alone (202 answer). */
  submitMs: { p50: number; p99: number };
}

/** The connector's job options (as `BullmqJobQueue` sets them), so both drains store and expire jobs alike. */
export const JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 86_400 },
  removeOnFail: { age: 86_400 },
};

/** Opens a BullMQ queue on a bench client (producer side only). */
export async function openQueue(client: RedisClient, name: string, prefix: string): Promise<Queue> {
  const queue = new Queue(name, { connection: client, prefix });
  await queue.waitUntilReady();
  return queue;
}

/** The queues a drain fills, through the bench's client: one queue, or a connector's shards in order. */
export interface DrainTarget {
  client: RedisClient;
  queues: Queue[];
  /** The index in `queues` of a job id's queue (the connector's shard function); the first queue without it. */
  shardOf?: (jobId: string) => number;
}

/**
 * How a drain's Redis work is counted: on one node by its process (`redisPid`, CPU from /proc) and
 * `INFO stats`; on several nodes by a {@link NodeMeter}, node by node (then the figure's Redis CPU and
 * commands are the primaries' sums, and `nodes` holds each node's part).
 */
export interface DrainMeasure {
  workerPid?: number;
  redisPid?: number;
  nodes?: NodeMeter;
}

/**
 * Times how long the worker takes to finish `jobs` jobs: they are added while the queues are paused,
 * then the clock starts at resume and stops at the last job's `finishedOn`. Every job must succeed.
 */
export async function drain(target: DrainTarget, jobs: number, jobName: string, measure: DrainMeasure = {}): Promise<DrainFigure> {
  const { client, queues } = target;
  const shardOf = target.shardOf ?? (() => 0);
  await Promise.all(queues.map((queue) => queue.pause()));
  const run = randomUUID().slice(0, 8);
  const job = (i: number) => ({
    name: jobName,
    data: toBullJobData({
      id: '',
      subject: 'bench',
      operation: jobName,
      input: { prompt: `drain ${i}` },
      cost: 1,
      createdAt: new Date().toISOString(),
    }),
    opts: { ...JOB_OPTIONS, jobId: `drain_${run}_${i}` },
  });
  for (let start = 0; start < jobs; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, jobs - start) }, (_, i) => job(start + i));
    await Promise.all(
      queues.map((queue, q) => {
        const mine = batch.filter((item) => shardOf(item.opts.jobId) === q);
        return mine.length > 0 ? queue.addBulk(mine) : undefined;
      }),
    );
  }
  // Plain ZCARDs (not BullMQ's count scripts) so that the polling's own commands are known exactly.
  const setKey = (queue: Queue, set: string) => `${queue.opts.prefix}:${queue.name}:${set}`;
  const finishedCount = async () => {
    const counts = await Promise.all(
      queues.map((queue) => Promise.all([client.zcard(setKey(queue, 'completed')), client.zcard(setKey(queue, 'failed'))])),
    );
    return { completed: counts.reduce((sum, [c]) => sum + c, 0), failed: counts.reduce((sum, [, f]) => sum + f, 0) };
  };
  const before = await finishedCount();
  const cpuBefore = { worker: cpuTimeMs(measure.workerPid), redis: cpuTimeMs(measure.redisPid) };
  const nodesBefore = measure.nodes ? await measure.nodes.sample() : undefined;
  const commandsBefore = measure.nodes ? 0 : await commandsProcessed(client);
  let polls = 0;
  const startedAt = Date.now();
  await Promise.all(queues.map((queue) => queue.resume()));
  await waitUntil(
    async () => {
      polls++;
      const now = await finishedCount();
      return now.completed + now.failed - before.completed - before.failed >= jobs;
    },
    600_000,
    `${jobs} jobs to drain`,
  );
  const nodes = measure.nodes && nodesBefore ? NodeMeter.between(nodesBefore, await measure.nodes.sample()) : undefined;
  const commandsAfter = measure.nodes ? 0 : await commandsProcessed(client);
  const cpuAfter = { worker: cpuTimeMs(measure.workerPid), redis: cpuTimeMs(measure.redisPid) };
  const failed = (await finishedCount()).failed - before.failed;
  if (failed > 0) throw new Error(`${failed} of ${jobs} drained jobs failed`);
  // Each completed set is scored by finishedOn: the latest last member is the drain's end, whatever the polling delay.
  const ends = await Promise.all(
    queues.map(async (queue) => Number((await client.zrange(setKey(queue, 'completed'), '-1', '-1', 'WITHSCORES'))[1] ?? 0)),
  );
  const seconds = (Math.max(...ends) - startedAt) / 1000;
  const perJob = (before: number | null, after: number | null) =>
    before === null || after === null ? null : round(((after - before) * 1000) / jobs, 0);
  // Each poll is two ZCARDs per queue; on one node the INFO that reads the count is one more.
  const pollCommands = 2 * queues.length * polls;
  const primaries = nodes?.filter((node) => node.role === 'primary');
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  return {
    jobs,
    seconds: round(seconds, 3),
    jobsPerSecond: round(jobs / seconds, 0),
    // Redis's share includes the bench's own polling of the counts, the same for every drain.
    workerCpuUsPerJob: perJob(cpuBefore.worker, cpuAfter.worker),
    redisCpuUsPerJob: primaries
      ? round((sum(primaries.map((node) => node.cpuMs)) * 1000) / jobs, 0)
      : perJob(cpuBefore.redis, cpuAfter.redis),
    redisCommandsPerJob: round(
      ((primaries ? sum(primaries.map((node) => node.commands)) : commandsAfter - commandsBefore - 1) - pollCommands) / jobs,
      2,
    ),
    ...(nodes ? { nodes } : {}),
  };
}

/** Sends `POST /v1/jobs` with fresh keys at `ratePerSecond` for `seconds` (open loop) and measures each job. */
export async function submitToSucceeded(options: {
  baseUrl: string;
  token: string;
  ratePerSecond: number;
  seconds: number;
  queue: Queue;
}): Promise<LatencyFigure> {
  const { baseUrl, token, ratePerSecond, seconds, queue } = options;
  const total = Math.round(ratePerSecond * seconds);
  const run = randomUUID().slice(0, 8);
  const sent: Array<Promise<{ id: string; sentAt: number; submitMs: number }>> = [];
  const submit = async (i: number) => {
    // Wall-clock milliseconds with a fraction, comparable with BullMQ's finishedOn (Date.now() in the worker).
    const sentAt = performance.timeOrigin + performance.now();
    const response = await fetch(`${baseUrl}/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `latency-${run}-${i}` },
      body: '{"input":{"prompt":"latency"}}',
    });
    const body = (await response.json()) as { id?: string };
    if (response.status !== 202 || !body.id) throw new Error(`latency submit ${i} answered ${response.status}`);
    return { id: body.id, sentAt, submitMs: performance.timeOrigin + performance.now() - sentAt };
  };
  // Open loop: request i leaves at i / rate seconds whatever the earlier answers did, so a slow answer
  // cannot lower the offered rate (a closed loop would hide queueing delay).
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / ratePerSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const attempt = submit(i);
    attempt.catch(() => undefined);
    sent.push(attempt);
  }
  const submitted = await Promise.all(sent);
  const finished = new Map<string, number>();
  await waitUntil(
    async () => {
      for (const { id } of submitted) {
        if (finished.has(id)) continue;
        const job = await queue.getJob(id);
        if (job?.failedReason) throw new GiveUp(`latency job ${id} failed`);
        if (!job?.finishedOn) return false;
        finished.set(id, job.finishedOn);
      }
      return true;
    },
    60_000,
    `${total} latency jobs to finish`,
  );
  const latencies = submitted.map(({ id, sentAt }) => finished.get(id)! - sentAt).sort((a, b) => a - b);
  const submits = submitted.map(({ submitMs }) => submitMs).sort((a, b) => a - b);
  return {
    ratePerSecond,
    seconds,
    jobs: total,
    submitToSucceededMs: {
      p50: round(percentile(latencies, 50), 1),
      p99: round(percentile(latencies, 99), 1),
      max: round(latencies[latencies.length - 1], 1),
    },
    submitMs: { p50: round(percentile(submits, 50), 1), p99: round(percentile(submits, 99), 1) },
  };
}

/** The nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
