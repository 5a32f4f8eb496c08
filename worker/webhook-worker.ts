import type { Job } from '../shared/domain/jobs/job';
import { DelayedError, UnrecoverableError, Worker, type Job as BullJob } from 'bullmq';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { queueTelemetry } from '../shared/platform/tracing/queue-telemetry';
import type { Config } from '../shared/platform/config/config';
import type { Metrics } from '../shared/platform/metrics/metrics';
import { BullmqEventQueue, type BullEventData } from '../shared/adapters/redis/bullmq-event-queue';
import { BullmqJobQueue } from '../shared/adapters/redis/bullmq-job-queue';
import { closeRedisClient, redisAnswers } from '../shared/adapters/redis/redis-client';
import { openRedisSession } from '../shared/adapters/redis/redis-session';
import { RedisConnectionStore } from '../shared/adapters/redis/redis-connection-store';
import { EventDelivery } from '../shared/domain/webhooks/event-delivery';
import type { EventQueue } from '../shared/domain/webhooks/event-queue';
import { retryDelay } from '../shared/domain/webhooks/retry-schedule';
import { WebhookSender } from '../shared/domain/webhooks/webhook-sender';

/** The settings the delivery worker reads from the configuration. */
export type WebhookWorkerConfig = Pick<
  Config,
  | 'redis'
  | 'jobQueueShards'
  | 'redisKeyPrefix'
  | 'redisCommandTimeoutMs'
  | 'jobLockMs'
  | 'jobStalledIntervalMs'
  | 'jobAttempts'
  | 'jobBackoffMs'
  | 'idempotencyTtlSeconds'
  | 'webhooks'
>;

/** A running consumer of the `webhooks` queue, and a producer on its connection. */
export interface WebhookWorker {
  /** Records events (the job worker of the same process records job events here). */
  readonly events: EventQueue;
  /** True while Redis answers this consumer's connection. */
  ready(): Promise<boolean>;
  /** Takes no new deliveries, lets running ones finish within `graceMs`, then closes Redis. */
  close(graceMs: number): Promise<void>;
}

type DeliveryJob = BullJob<BullEventData, string, string>;

/**
 * Sends the events recorded in Redis: one BullMQ job per event, attempted on the retry schedule (a custom
 * backoff, retry-schedule.ts) until the receiver answers 2xx or 410 or the schedule ends. An event whose
 * job or connection is not there yet is put back for a later look without spending an attempt. A worker
 * that dies mid-attempt leaves the delivery to be retaken (at least once: the same `webhook-id` again).
 * Undefined when no receiver is configured.
 */
export function createWebhookWorker(options: {
  config: WebhookWorkerConfig;
  metrics: Metrics;
  logger: Logger;
  /** How a job event shows its job: the operations' event views (`JobViewer.event`); default as stored. */
  jobView?: (job: Job) => Job;
}): WebhookWorker | undefined {
  const { config, metrics, logger } = options;
  const settings = config.webhooks;
  if (!settings || !config.redis) return undefined;
  const { client, keys, guard } = openRedisSession({ ...config, redis: config.redis }, 'webhooks', logger, metrics);
  const sources = {
    // Only read here: the job queue's enqueue options are never used.
    jobs: new BullmqJobQueue(client, keys, guard, {
      attempts: config.jobAttempts,
      backoffMs: config.jobBackoffMs,
      retentionSeconds: config.idempotencyTtlSeconds,
      logger,
      shards: config.jobQueueShards,
      durability: { minReplicas: 0, waitMs: 0 },
    }),
    connections: new RedisConnectionStore(client, keys, guard),
    jobView: options.jobView,
  };
  const delivery = new EventDelivery(sources, new WebhookSender(settings), metrics, logger);
  const events = new BullmqEventQueue(client, keys, guard, { retryBaseMs: settings.retryBaseMs, logger });

  const deliver = async (job: DeliveryJob, token?: string): Promise<string> => {
    const attempt = job.attemptsMade + 1;
    const { body, ...event } = job.data;
    const step = await delivery.attempt(event, body, attempt, attempt >= (job.opts.attempts ?? 1));
    switch (step.kind) {
      case 'wait':
        // Not an attempt: BullMQ moves it to the delayed set without counting one.
        await job.moveToDelayed(Date.now() + step.delayMs, token);
        throw new DelayedError();
      case 'skipped':
      case 'delivered':
        return step.kind;
      case 'gone':
        throw new UnrecoverableError('the receiver answered 410 Gone');
      case 'failed':
        // Kept, so every retry sends the same bytes.
        if (body === undefined) await job.updateData({ ...job.data, body: step.body });
        throw new Error('the delivery attempt failed');
    }
  };

  const worker = new Worker<BullEventData, string, string>(keys.webhookQueueName, deliver, {
    connection: client,
    prefix: keys.bullPrefix,
    telemetry: queueTelemetry(),
    concurrency: settings.concurrency,
    lockDuration: config.jobLockMs,
    stalledInterval: config.jobStalledIntervalMs,
    // A delivery retaken after a crash is sent again (at least once); it must not fail for it.
    maxStalledCount: 10,
    settings: { backoffStrategy: (attemptsMade: number) => retryDelay(settings.retryBaseMs, attemptsMade) },
  });
  worker.on('error', (error: Error) => {
    if (!/ECONNREFUSED|ECONNRESET|Connection is closed|ETIMEDOUT|Stream isn't writeable/.test(error.message)) {
      logger.warn({ err: error }, 'webhook worker error');
    }
  });

  let closing: Promise<void> | undefined;
  return {
    events,
    ready: async () => worker.isRunning() && redisAnswers(client),
    close: (graceMs) => {
      closing ??= (async () => {
        let timer: NodeJS.Timeout | undefined;
        const expired = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
        const finished = await Promise.race([
          worker.close().then(
            () => true,
            () => true,
          ),
          expired,
        ]);
        clearTimeout(timer);
        // Out of time: the unfinished deliveries' locks expire and another worker retakes them.
        if (!finished) await Promise.race([worker.disconnect().catch(() => undefined), delay(500)]);
        await events.close(500);
        delivery.close();
        await closeRedisClient(client, 500);
      })();
      return closing;
    },
  };
}
