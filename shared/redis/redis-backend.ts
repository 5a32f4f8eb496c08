import type { Logger } from 'pino';
import type { Config } from '../config/config';
import type { Metrics } from '../metrics/metrics';
import type { Backend } from '../stores/backend';
import { NO_EVENTS } from '../webhooks/event-queue';
import { BullmqEventQueue } from './bullmq-event-queue';
import { BullmqJobQueue } from './bullmq-job-queue';
import { closeRedisClient, createRedisClient, redisAnswers } from './redis-client';
import { RedisAdmissionStore } from './redis-admission-store';
import { RedisConnectionStore } from './redis-connection-store';
import { RedisGuard } from './redis-guard';
import { RedisJobIdKeyStore } from './redis-job-id-key-store';
import { RedisKeys } from './redis-keys';
import { RedisLedgerStore } from './redis-ledger-store';
import { RedisOAuthStateStore } from './redis-oauth-state-store';
import { RedisRateLimitStore } from './redis-rate-limit-store';
import { RedisThingStore } from './redis-thing-store';

/**
 * The production backend: every store and the job queue on one Redis, shared by every replica. Requests
 * that need Redis answer 503 while it is away (within the command timeout, never hanging), and the client
 * reconnects by itself when it returns. Jobs are only enqueued here; a worker process runs them.
 */
export function createRedisBackend(
  config: Pick<Config, 'redisUrl' | 'redisKeyPrefix' | 'redisCommandTimeoutMs' | 'jobAttempts' | 'jobBackoffMs' | 'idempotencyTtlSeconds'> & Partial<Pick<Config, 'webhooks'>>,
  metrics: Metrics,
  logger: Logger,
): Backend {
  if (!config.redisUrl) throw new Error('createRedisBackend needs REDIS_URL');
  const client = createRedisClient({
    url: config.redisUrl,
    role: 'commands',
    connectionName: `${config.redisKeyPrefix}api`,
    commandTimeoutMs: config.redisCommandTimeoutMs,
    logger,
    metrics,
  });
  const keys = new RedisKeys(config.redisKeyPrefix);
  // The deadline sits a little above the command timeout, so the client's own timeout normally answers
  // first and the guard only catches waits the client does not bound.
  const guard = new RedisGuard(config.redisCommandTimeoutMs + 500, () => metrics.redisErrors.inc());
  const queue = new BullmqJobQueue(client, keys, guard, {
    attempts: config.jobAttempts,
    backoffMs: config.jobBackoffMs,
    retentionSeconds: config.idempotencyTtlSeconds,
    logger,
  });
  // Only recorded here; the worker process sends them.
  const events = config.webhooks ? new BullmqEventQueue(client, keys, guard, { retryBaseMs: config.webhooks.retryBaseMs, logger }) : NO_EVENTS;

  return {
    kind: 'redis',
    connections: new RedisConnectionStore(client, keys, guard),
    admissions: new RedisAdmissionStore(client, keys, guard),
    things: new RedisThingStore(client, keys, guard),
    ledger: new RedisLedgerStore(client, keys, guard),
    rateLimits: new RedisRateLimitStore(client, keys, guard),
    queue,
    jobIdKeys: new RedisJobIdKeyStore(client, keys, guard),
    oauth: new RedisOAuthStateStore(client, keys, guard),
    events,
    ready: () => redisAnswers(client),
    close: async (graceMs) => {
      await Promise.all([queue.close(graceMs), events.close(graceMs)]);
      // Last: everything above may still need Redis while it closes.
      await closeRedisClient(client);
    },
  };
}
