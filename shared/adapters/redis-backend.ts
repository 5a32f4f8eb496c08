import type { Logger } from 'pino';
import type { Backend } from '../domain/backend';
import { createJobObserver } from '../domain/jobs/job-observer';
import type { JobPolicies } from '../domain/jobs/processor';
import { NO_EVENTS } from '../domain/webhooks/event-queue';
import { filteredEvents } from '../domain/webhooks/filtered-events';
import { jobEventsOn } from '../domain/webhooks/job-events';
import type { Config } from '../platform/config/config';
import type { Metrics } from '../platform/metrics/metrics';
import { composeBullmqJobQueue, composeLifecycle, jobServiceOn, settleOn } from './compose-jobs';
import { BullmqEventQueue } from './redis/bullmq-event-queue';
import { RedisAdmissionStore } from './redis/redis-admission-store';
import { RedisClaimReader } from './redis/redis-claim-reader';
import { closeRedisClient, redisAnswers } from './redis/redis-client';
import { RedisConnectionStore } from './redis/redis-connection-store';
import { RedisCreditStore } from './redis/redis-credit-store';
import { RedisJobIdKeyStore } from './redis/redis-job-id-key-store';
import { RedisLedgerStore } from './redis/redis-ledger-store';
import { RedisOAuthStateStore } from './redis/redis-oauth-state-store';
import { RedisQuoteNonceStore } from './redis/redis-quote-nonce-store';
import { RedisRateLimitStore } from './redis/redis-rate-limit-store';
import { openRedisSession } from './redis/redis-session';
import { RedisThingStore } from './redis/redis-thing-store';
import { SequentialAdmissionStore } from './sequential-admission-store';

/** The settings the Redis backend reads. */
export type RedisBackendConfig = Pick<
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
  Partial<Pick<Config, 'webhooks' | 'billing'>>;

/** What the Redis backend is built from. */
export interface RedisBackendDeps {
  config: RedisBackendConfig;
  metrics: Metrics;
  logger: Logger;
  /** Each operation's attempts, back-off and settlement terms (none: the defaults). */
  policies?: JobPolicies;
}

/**
 * The production backend: every store and the job queue on one Redis, shared by every replica. Requests
 * that need Redis answer 503 while it is away (within the command timeout, never hanging), and the client
 * reconnects by itself when it returns. Jobs are only enqueued here; a worker process runs them.
 */
export function createRedisBackend(deps: RedisBackendDeps): Backend {
  const { config, metrics, logger, policies = new Map() } = deps;
  if (!config.redis) throw new Error('createRedisBackend needs a Redis connection');
  const session = openRedisSession({ ...config, redis: config.redis }, 'api', logger, metrics);
  const { client, keys, guard } = session;
  const { clustered } = keys;
  const queue = composeBullmqJobQueue(session, { config, logger, policies });
  const connections = new RedisConnectionStore(client, keys, guard);
  const ledger = new RedisLedgerStore(client, keys, guard);
  const credits = new RedisCreditStore(client, keys, guard);
  const rateLimits = new RedisRateLimitStore(client, keys, guard);
  // Only recorded here; the worker process sends them.
  const events = config.webhooks
    ? filteredEvents(
        new BullmqEventQueue(client, keys, guard, { retryBaseMs: config.webhooks.retryBaseMs, logger }),
        config.webhooks.eventTypes,
      )
    : NO_EVENTS;
  // The API ends a job only when its cancel finds it queued; the worker runs and ends every other.
  const lifecycle = composeLifecycle({
    config,
    settle: settleOn({ credits, ledger }),
    events: jobEventsOn(events),
    observer: createJobObserver(metrics, logger),
    policies,
  });

  // One script reads a bearer request's keys in one round trip, but they span hash slots; a cluster
  // admits with single-slot calls instead (two rounds), reading the credit account only where it is used.
  const oneNode = clustered ? undefined : new RedisAdmissionStore(client, keys, guard);
  return {
    kind: 'redis',
    connections,
    admissions:
      oneNode ??
      new SequentialAdmissionStore({ connections, rateLimits, ledger, credits: config.billing?.mode === 'prepaid' ? credits : undefined }),
    things: new RedisThingStore(client, keys, guard),
    ledger,
    credits,
    rateLimits,
    queue,
    jobService: jobServiceOn({
      ledger,
      queue,
      lifecycle,
      retentionSeconds: config.idempotencyTtlSeconds,
      // The claim and its job's read in one script (with the admission first), where their keys are on one node.
      ...(oneNode ? { claimReader: new RedisClaimReader(client, { ledger, queue, admissions: oneNode }) } : {}),
    }),
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
