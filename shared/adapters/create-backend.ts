import type { Logger } from 'pino';
import type { Backend } from '../domain/backend';
import type { Job } from '../domain/jobs/job';
import { createJobObserver } from '../domain/jobs/job-observer';
import type { JobPolicies, ProcessorMap } from '../domain/jobs/processor';
import { EventDelivery } from '../domain/webhooks/event-delivery';
import { filteredEvents } from '../domain/webhooks/filtered-events';
import { WebhookSender } from '../domain/webhooks/webhook-sender';
import type { Config } from '../platform/config/config';
import type { Metrics } from '../platform/metrics/metrics';
import { MemoryEventQueue } from './memory/memory-event-queue';
import { createMemoryBackend } from './memory-backend';
import { createRedisBackend } from './redis-backend';

/** The warning printed when no Redis is configured. */
export const MEMORY_BACKEND_WARNING =
  'REDIS_URL is not set: using the embedded in-memory backend. Every token, thing, job and charge is lost on exit, ' +
  'revocations are not shared, and jobs run in this process: do not run more than one replica.';

/** What a backend is built from. */
export interface BackendDeps {
  config: Config;
  /** The processors of the paid jobs (run in this process on the embedded backend only). */
  processors: ProcessorMap;
  metrics: Metrics;
  logger: Logger;
  /** Each operation's attempts, back-off, timeout and refund on failure (none: the defaults). */
  policies?: JobPolicies;
  /** How a webhook event shows its job (each operation's event view); default: as stored. */
  jobView?: (job: Job) => Job;
}

/**
 * Picks the backend from the configuration: Redis when `REDIS_URL` (or a Sentinel or Cluster variable) is
 * set, else memory. Once Redis is configured there is no fallback: an unreachable Redis means 503s and a
 * failing `/readyz`, never a silent switch to state that other replicas cannot see.
 */
export function createBackend(deps: BackendDeps): Backend {
  const { config, processors, metrics, logger, policies = new Map(), jobView } = deps;
  if (config.redis) {
    const backend = createRedisBackend({ config, metrics, logger, policies });
    metrics.observeQueue(() => backend.queue.counts());
    return backend;
  }
  logger.warn(MEMORY_BACKEND_WARNING);
  const webhooks = config.webhooks;
  const backend = createMemoryBackend({
    config,
    processors,
    policies,
    observer: createJobObserver(metrics, logger),
    events: webhooks
      ? (sources) =>
          filteredEvents(
            new MemoryEventQueue({
              delivery: new EventDelivery({ ...sources, jobView }, new WebhookSender(webhooks), metrics, logger),
              retryBaseMs: webhooks.retryBaseMs,
              concurrency: webhooks.concurrency,
              metrics,
              logger,
            }),
            webhooks.eventTypes,
          )
      : undefined,
  });
  metrics.observeQueue(() => backend.queue.counts());
  return backend;
}
