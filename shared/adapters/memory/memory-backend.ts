import type { JobRecord } from '../../domain/jobs/job';
import type { JobPolicies, ProcessorMap } from '../../domain/jobs/processor';
import type { Backend } from '../../domain/backend';
import { SequentialAdmissionStore } from '../sequential-admission-store';
import type { JobObserver } from '../../domain/jobs/job-observer';
import { billingMoney, DEFAULT_TERMS } from '../../domain/jobs/job-settlement';
import type { EventSources } from '../../domain/webhooks/event-facts';
import { NO_EVENTS, type EventQueue } from '../../domain/webhooks/event-queue';
import { jobEventsOn } from '../../domain/webhooks/job-events';
import { MemoryConnectionStore } from './memory-connection-store';
import { MemoryCreditStore } from './memory-credit-store';
import { MemoryJobIdKeyStore } from './memory-job-id-key-store';
import { MemoryJobQueue } from './memory-job-queue';
import { MemoryLedgerStore } from './memory-ledger-store';
import { MemoryQuoteNonceStore } from './memory-quote-nonce-store';
import { MemoryOAuthStateStore } from './memory-oauth-state-store';
import { MemoryRateLimitStore } from './memory-rate-limit-store';
import { MemoryThingStore } from './memory-thing-store';

/** Settings of the embedded backend. */
export interface MemoryBackendOptions {
  processors: ProcessorMap;
  concurrency: number;
  attempts: number;
  backoffMs: number;
  /** Each operation's own attempts, back-off, timeout and refund on failure. */
  policies?: JobPolicies;
  retentionSeconds: number;
  /** `BILLING_MODE=prepaid`: jobs' holds are captured and released as they end (default: metered). */
  prepaid?: boolean;
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
  const queue: MemoryJobQueue = new MemoryJobQueue({
    processors: options.processors,
    concurrency: options.concurrency,
    attempts: options.attempts,
    backoffMs: options.backoffMs,
    policies: options.policies,
    retentionMs: options.retentionSeconds * 1000,
    ending: {
      // The embedded stores settle at once, so a job's capture, release and refund are part of the step that ends it.
      money: billingMoney(
        options.prepaid === true,
        { capture: (request) => credits.captureNow(request), refund: (request) => ledger.refundNow(request) },
        options.retentionSeconds,
      ),
      events: jobEventsOn(events, { awaitStored: false }),
      observer: options.observer,
      terms: (operation) => options.policies?.get(operation) ?? DEFAULT_TERMS,
    },
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
    admissions: new SequentialAdmissionStore(connections, rateLimits, ledger, Date.now, credits),
    queue,
    lifecycle: queue.lifecycle,
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
