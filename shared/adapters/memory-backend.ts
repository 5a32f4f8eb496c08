import type { Backend } from '../domain/backend';
import type { JobRecord } from '../domain/jobs/job';
import type { JobObserver } from '../domain/jobs/job-observer';
import type { JobPolicies, ProcessorMap } from '../domain/jobs/processor';
import type { EventSources } from '../domain/webhooks/event-facts';
import { type EventQueue, NO_EVENTS } from '../domain/webhooks/event-queue';
import { jobEventsOn } from '../domain/webhooks/job-events';
import { composeMemoryJobQueue, jobServiceOn, type MemoryJobsConfig } from './compose-jobs';
import { MemoryConnectionStore } from './memory/memory-connection-store';
import { MemoryCreditStore } from './memory/memory-credit-store';
import { MemoryJobIdKeyStore } from './memory/memory-job-id-key-store';
import type { MemoryJobQueue } from './memory/memory-job-queue';
import { MemoryLedgerStore } from './memory/memory-ledger-store';
import { MemoryOAuthStateStore } from './memory/memory-oauth-state-store';
import { MemoryQuoteNonceStore } from './memory/memory-quote-nonce-store';
import { MemoryRateLimitStore } from './memory/memory-rate-limit-store';
import { MemoryThingStore } from './memory/memory-thing-store';
import { SequentialAdmissionStore } from './sequential-admission-store';

/** Settings of the embedded backend. */
export interface MemoryBackendOptions {
  /** The queue's concurrency, attempts and back-off, the retention, and the billing mode. */
  config: MemoryJobsConfig;
  processors: ProcessorMap;
  /** Each operation's own attempts, back-off, timeout and refund on failure. */
  policies?: JobPolicies;
  /** Where the jobs' starts, ends, refunds and faults are logged and measured; none: nowhere. */
  observer?: JobObserver;
  /** Builds the event queue on the backend's own job queue and connections; none: no events. */
  events?: (sources: EventSources) => EventQueue;
}

/** The embedded backend: every store in memory and jobs run in this process. For one process only. */
export function createMemoryBackend(options: MemoryBackendOptions): Backend {
  const credits = new MemoryCreditStore();
  const ledger = new MemoryLedgerStore(credits);
  const connections = new MemoryConnectionStore();
  const rateLimits = new MemoryRateLimitStore();
  // The deliveries read jobs only when they send, by which time the queue below exists.
  const events: EventQueue =
    options.events?.({ jobs: { get: (id): Promise<JobRecord | undefined> => queue.get(id) }, connections }) ?? NO_EVENTS;
  const queue: MemoryJobQueue = composeMemoryJobQueue({
    config: options.config,
    processors: options.processors,
    policies: options.policies,
    // The embedded stores settle at once, so a job's capture, release and refund are part of the step that ends it.
    settle: { capture: (request) => credits.captureNow(request), refund: (request) => ledger.refundNow(request) },
    events: jobEventsOn(events, { awaitStored: false }),
    observer: options.observer,
  });
  // Retention is enforced by a periodic sweep; unref'd so it never keeps the process alive.
  const sweeper = setInterval(() => {
    queue.sweep();
    ledger.prune((id) => queue.has(id));
    credits.prune();
  }, 60_000);
  sweeper.unref();

  return {
    kind: 'memory',
    connections,
    things: new MemoryThingStore(),
    ledger,
    credits,
    rateLimits,
    admissions: new SequentialAdmissionStore({ connections, rateLimits, ledger, credits }),
    queue,
    jobService: jobServiceOn({ ledger, queue, lifecycle: queue.lifecycle, retentionSeconds: options.config.idempotencyTtlSeconds }),
    jobIdKeys: new MemoryJobIdKeyStore(),
    oauth: new MemoryOAuthStateStore(),
    quoteNonces: new MemoryQuoteNonceStore(),
    events,
    ready: async () => true,
    close: async (graceMs) => {
      clearInterval(sweeper);
      const deadline = Date.now() + graceMs;
      await queue.close(graceMs);
      await events.close(Math.max(0, deadline - Date.now()));
    },
  };
}
