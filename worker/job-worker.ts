import type { Logger } from 'pino';
import { composeLifecycle, settleOn } from '../shared/adapters/compose-jobs';
import { jobProgressStore } from '../shared/adapters/redis/job-progress-store';
import { closeRedisClient, redisAnswers } from '../shared/adapters/redis/redis-client';
import { RedisCreditStore } from '../shared/adapters/redis/redis-credit-store';
import { RedisLedgerStore } from '../shared/adapters/redis/redis-ledger-store';
import { openRedisSession } from '../shared/adapters/redis/redis-session';
import type { JobLifecycle } from '../shared/domain/jobs/job-lifecycle';
import { createJobObserver } from '../shared/domain/jobs/job-observer';
import type { JobPolicies, ProcessorMap } from '../shared/domain/jobs/processor';
import { type EventQueue, NO_EVENTS } from '../shared/domain/webhooks/event-queue';
import { jobEventsOn } from '../shared/domain/webhooks/job-events';
import type { Config } from '../shared/platform/config/config';
import type { Metrics } from '../shared/platform/metrics/metrics';
import { createJobProcessor } from './bullmq-attempt';
import { createCancelWatch } from './cancel-watch';
import { handBack } from './hand-back';
import type { RunningJob } from './running-job';
import { ShardConsumers } from './shard-consumers';
import { endStalledOut } from './stalled-out';

/** The settings a job worker reads from the configuration. */
export type JobWorkerConfig = Pick<
  Config,
  | 'redis'
  | 'redisKeyPrefix'
  | 'redisCommandTimeoutMs'
  | 'workerConcurrency'
  | 'jobLockMs'
  | 'jobStalledIntervalMs'
  | 'jobQueueShards'
  | 'idempotencyTtlSeconds'
> &
  Partial<Pick<Config, 'billing'>>;

/** A running BullMQ consumer. */
export interface JobWorker {
  /** True while Redis answers this worker's connection. */
  ready(): Promise<boolean>;
  /** Takes no new jobs, lets running ones finish within `graceMs`, then closes Redis (last). */
  close(graceMs: number): Promise<void>;
}

/** What a job worker is built from. */
export interface JobWorkerOptions {
  config: JobWorkerConfig;
  processors: ProcessorMap;
  /**
   * Each operation's policy, built from its paid job's declaration: its timeout and whether a failure is
   * refunded (its attempts and back-off travel with the job, set when it was enqueued). Required, so that a
   * job's settings never come from anywhere but its own declaration; an operation missing here runs without
   * a timeout and refunds its failures (the declared defaults).
   */
  policies: JobPolicies;
  metrics: Metrics;
  logger: Logger;
  /** Where a finished job's event is recorded (none: no events). */
  events?: EventQueue;
  /** Tests only: called right after a job's event is recorded, before the job is marked finished. */
  afterJobEvent?: () => void;
}

/**
 * Consumes the paid-jobs queues: each job's attempt goes through the job lifecycle, the same as on the
 * in-memory queue (`JobLifecycle`), with the worker's ports on Redis (`BullmqAttempt`). A worker that dies
 * mid-job loses its lock after `jobLockMs`, and another worker's stalled-job check puts the job back; the
 * ending's decision, written before any money moves, makes the job end the same way when it is taken again.
 */
export function createJobWorker(options: JobWorkerOptions): JobWorker {
  const { config, metrics, logger } = options;
  if (!config.redis) throw new Error('the job worker needs Redis');
  // This client is closed last, by us; BullMQ closes the duplicates it makes for its blocking fetches.
  const { client, keys, guard } = openRedisSession({ ...config, redis: config.redis }, 'worker', logger, metrics);
  const lifecycle = workerLifecycle(options, new RedisLedgerStore(client, keys, guard), new RedisCreditStore(client, keys, guard));
  const cancels = createCancelWatch(client);
  const running = new Map<string, RunningJob>();
  const processJob = createJobProcessor({ lifecycle, running, client, cancels, writeProgress: jobProgressStore(client), logger });
  const consumers = new ShardConsumers({
    client,
    keys,
    config,
    logger,
    processJob,
    onFailedByBullmq: (job) =>
      endStalledOut(job, client, lifecycle).catch((error: unknown) =>
        logger.warn({ err: error, job_id: job.id }, 'could not refund or record the event of a job that stalled too often'),
      ),
  });
  let closing: Promise<void> | undefined;

  return {
    ready: async () => consumers.running() && redisAnswers(client),
    close: (graceMs) => {
      closing ??= (async () => {
        if (!(await consumers.drain(graceMs))) await handBackTheRest(consumers, running, graceMs, logger);
        // Cancels are watched until the end: a job finishing within the grace period can still be stopped.
        cancels.close();
        await closeRedisClient(client, 500);
      })();
      return closing;
    },
  };
}

/**
 * The lifecycle of the worker's jobs: settled on its ledger (and, in prepaid billing, its credit accounts),
 * their events recorded before BullMQ's mark.
 */
function workerLifecycle(options: JobWorkerOptions, ledger: RedisLedgerStore, credits: RedisCreditStore): JobLifecycle {
  return composeLifecycle({
    config: options.config,
    settle: settleOn({ credits, ledger }),
    events: jobEventsOn(options.events ?? NO_EVENTS),
    observer: createJobObserver(options.metrics, options.logger),
    policies: options.policies,
    processors: options.processors,
    afterJobEvent: options.afterJobEvent,
  });
}

/**
 * Out of time: the unfinished jobs are handed back (active → waiting, lock released), so the next worker
 * takes them at once, without waiting for the lock to expire and without spending the one stall a job is
 * forgiven. Should Redis not take a job back, its lock expires and the stalled check retakes it. Processing
 * is at-least-once either way.
 */
async function handBackTheRest(
  consumers: ShardConsumers,
  running: Map<string, RunningJob>,
  graceMs: number,
  logger: Logger,
): Promise<void> {
  const handedBack = await handBack([...running.values()], logger);
  logger.warn(
    { grace_ms: graceMs, handed_back: handedBack },
    'jobs still running at the end of the grace period; handed back to the queue',
  );
  await consumers.disconnect();
}
