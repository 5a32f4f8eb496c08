import { type Job as BullJob, DelayedError, UnrecoverableError } from 'bullmq';
import type { Logger } from 'pino';
import { composeBullmqJobQueue } from '../shared/adapters/compose-jobs';
import { type BullEventData, BullmqEventQueue } from '../shared/adapters/redis/bullmq-event-queue';
import { closeRedisClient, redisAnswers } from '../shared/adapters/redis/redis-client';
import { RedisConnectionStore } from '../shared/adapters/redis/redis-connection-store';
import { openRedisSession } from '../shared/adapters/redis/redis-session';
import type { Job } from '../shared/domain/jobs/job';
import { EventDelivery } from '../shared/domain/webhooks/event-delivery';
import type { EventQueue } from '../shared/domain/webhooks/event-queue';
import { filteredEvents } from '../shared/domain/webhooks/filtered-events';
import { retryDelay } from '../shared/domain/webhooks/retry-schedule';
import { WebhookSender } from '../shared/domain/webhooks/webhook-sender';
import type { Config } from '../shared/platform/config/config';
import type { Metrics } from '../shared/platform/metrics/metrics';
import { createBullmqWorker, disconnectWorkers, drainWorkers } from './bullmq-worker';

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
  const session = openRedisSession({ ...config, redis: config.redis }, 'webhooks', logger, metrics);
  const { client, keys, guard } = session;
  const sources = {
    // Only read here: the job queue's enqueue options are never used.
    jobs: composeBullmqJobQueue(session, { config, logger }),
    connections: new RedisConnectionStore(client, keys, guard),
    jobView: options.jobView,
  };
  const delivery = new EventDelivery(sources, new WebhookSender(settings), metrics, logger);
  const events = filteredEvents(
    new BullmqEventQueue(client, keys, guard, { retryBaseMs: settings.retryBaseMs, logger }),
    settings.eventTypes,
  );

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

  const worker = createBullmqWorker<BullEventData, string>({
    queueName: keys.webhookQueueName,
    processor: deliver,
    client,
    keys,
    config,
    concurrency: settings.concurrency,
    // A delivery retaken after a crash is sent again (at least once); it must not fail for it.
    maxStalledCount: 10,
    backoffStrategy: (attemptsMade) => retryDelay(settings.retryBaseMs, attemptsMade),
    logger,
    errorLog: { message: 'webhook worker error' },
  });

  let closing: Promise<void> | undefined;
  return {
    events,
    ready: async () => worker.isRunning() && redisAnswers(client),
    close: (graceMs) => {
      closing ??= (async () => {
        // Out of time: the unfinished deliveries' locks expire and another worker retakes them.
        if (!(await drainWorkers([worker], graceMs))) await disconnectWorkers([worker]);
        await events.close(500);
        delivery.close();
        await closeRedisClient(client, 500);
      })();
      return closing;
    },
  };
}
