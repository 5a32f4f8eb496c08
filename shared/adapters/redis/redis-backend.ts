import type { Logger } from 'pino';
import type { Config } from '../../platform/config/config';
import type { Metrics } from '../../platform/metrics/metrics';
import type { Backend } from '../../domain/backend';
import type { JobPolicies } from '../../domain/jobs/processor';
import { SequentialAdmissionStore } from '../sequential-admission-store';
import { JobLifecycle } from '../../domain/jobs/job-lifecycle';
import { createJobObserver } from '../../domain/jobs/job-observer';
import { billingMoney, DEFAULT_TERMS } from '../../domain/jobs/job-settlement';
import { jobEventsOn } from '../../domain/webhooks/job-events';
import { NO_EVENTS } from '../../domain/webhooks/event-queue';
import { BullmqEventQueue } from './bullmq-event-queue';
import { BullmqJobQueue } from './bullmq-job-queue';
import { closeRedisClient, redisAnswers } from './redis-client';
import { RedisAdmissionStore } from './redis-admission-store';
import { RedisConnectionStore } from './redis-connection-store';
import { RedisCreditStore } from './redis-credit-store';
import { RedisJobIdKeyStore } from './redis-job-id-key-store';
import { RedisLedgerStore } from './redis-ledger-store';
import { RedisQuoteNonceStore } from './redis-quote-nonce-store';
import { RedisOAuthStateStore } from './redis-oauth-state-store';
import { RedisRateLimitStore } from './redis-rate-limit-store';
import { openRedisSession } from './redis-session';
import { RedisThingStore } from './redis-thing-store';

/**
 * The production backend: every store and the job queue on one Redis, shared by every replica. Requests
 * that need Redis answer 503 while it is away (within the command timeout, never hanging), and the client
 * reconnects by itself when it returns. Jobs are only enqueued here; a worker process runs them.
 */
export function createRedisBackend(
  config: Pick<
    Config,
    | 'redis'
    | 'redisKeyPrefix'
    | 'redisCommandTimeoutMs'
    | 'jobAttempts'
    | 'jobBackoffMs'
    | 'idempotencyTtlSeconds'
    | 'jobQueueShards'
    | 'redisMinReplicas'
    | 'redisWaitMs'
  > &
    Partial<Pick<Config, 'webhooks' | 'billing'>>,
  metrics: Metrics,
  logger: Logger,
  policies: JobPolicies = new Map(),
): Backend {
  if (!config.redis) throw new Error('createRedisBackend needs a Redis connection');
  const { client, keys, guard } = openRedisSession({ ...config, redis: config.redis }, 'api', logger, metrics);
  const { clustered } = keys;
  const queue = new BullmqJobQueue(client, keys, guard, {
    attempts: config.jobAttempts,
    backoffMs: config.jobBackoffMs,
    policies,
    retentionSeconds: config.idempotencyTtlSeconds,
    logger,
    shards: config.jobQueueShards,
    durability: { minReplicas: config.redisMinReplicas, waitMs: config.redisWaitMs },
  });
  const connections = new RedisConnectionStore(client, keys, guard);
  const ledger = new RedisLedgerStore(client, keys, guard);
  const credits = new RedisCreditStore(client, keys, guard);
  const rateLimits = new RedisRateLimitStore(client, keys, guard);
  // Only recorded here; the worker process sends them.
  const events = config.webhooks
    ? new BullmqEventQueue(client, keys, guard, { retryBaseMs: config.webhooks.retryBaseMs, logger })
    : NO_EVENTS;
  // The API ends a job only when its cancel finds it queued; the worker runs and ends every other.
  const lifecycle = new JobLifecycle({
    money: billingMoney(
      config.billing?.mode === 'prepaid',
      { capture: (request) => credits.capture(request), refund: (request) => ledger.refund(request) },
      config.idempotencyTtlSeconds,
    ),
    events: jobEventsOn(events),
    observer: createJobObserver(metrics, logger),
    terms: (operation) => policies.get(operation) ?? DEFAULT_TERMS,
  });

  return {
    kind: 'redis',
    connections,
    // One script reads a bearer request's keys in one round trip, but they span hash slots; a cluster
    // admits with single-slot calls instead (two rounds), reading the credit account only where it is used.
    admissions: clustered
      ? new SequentialAdmissionStore(connections, rateLimits, ledger, Date.now, config.billing?.mode === 'prepaid' ? credits : undefined)
      : new RedisAdmissionStore(client, keys, guard),
    things: new RedisThingStore(client, keys, guard),
    ledger,
    credits,
    rateLimits,
    queue,
    lifecycle,
    jobIdKeys: new RedisJobIdKeyStore(client, keys, guard),
    oauth: new RedisOAuthStateStore(client, keys, guard),
    quoteNonces: new RedisQuoteNonceStore(client, keys, guard),
    events,
    ready: () => redisAnswers(client),
    close: async (graceMs) => {
      await Promise.all([queue.close(graceMs), events.close(graceMs)]);
      // Last: everything above may still need Redis while it closes.
      await closeRedisClient(client);
    },
  };
}
