import { isTerminal, type JobRecord } from '../../domain/jobs/job';
import type { JobPolicies, ProcessorMap } from '../../domain/jobs/processor';
import { refundOf } from '../../domain/jobs/job-service';
import type { Backend } from '../../domain/backend';
import { SequentialAdmissionStore } from '../../domain/admission/sequential-admission-store';
import type { EventSources } from '../../domain/webhooks/event-facts';
import { NO_EVENTS, type EventQueue } from '../../domain/webhooks/event-queue';
import { newEvent } from '../../domain/webhooks/webhook-event';
import { MemoryConnectionStore } from './memory-connection-store';
import { MemoryCreditStore } from './memory-credit-store';
import { MemoryJobIdKeyStore } from './memory-job-id-key-store';
import { MemoryJobQueue } from './memory-job-queue';
import { MemoryLedgerStore } from './memory-ledger-store';
import { MemoryOAuthStateStore } from './memory-oauth-state-store';
import { MemoryRateLimitStore } from './memory-rate-limit-store';
import { MemoryThingStore } from './memory-thing-store';

/** Settings of the embedded backend. */
export interface MemoryBackendOptions {
  processors: ProcessorMap;
  concurrency: number;
  attempts: number;
  backoffMs: number;
  /** Each operation's own attempts, back-off and timeout. */
  policies?: JobPolicies;
  retentionSeconds: number;
  onUnexpectedJobError?: (error: unknown, job: JobRecord) => void;
  onJobTransition?: (job: JobRecord) => void;
  /** Whether a failed job of this operation is refunded; default yes. */
  refundOnFailure?: (operation: string) => boolean;
  /** Builds the event queue on the backend's own job queue and connections; none: no events. */
  events?: (sources: EventSources) => EventQueue;
}

/** The embedded backend: every store in memory and jobs run in this process. For one process only. */
export function createMemoryBackend(options: MemoryBackendOptions): Backend {
  const ledger = new MemoryLedgerStore();
  const credits = new MemoryCreditStore();
  // Set once the queue and the connections exist; a job cannot finish before then.
  let events: EventQueue = NO_EVENTS;
  const queue = new MemoryJobQueue({
    processors: options.processors,
    concurrency: options.concurrency,
    attempts: options.attempts,
    backoffMs: options.backoffMs,
    policies: options.policies,
    retentionMs: options.retentionSeconds * 1000,
    onUnexpectedError: options.onUnexpectedJobError,
    refund: (job) => ledger.refundNow(refundOf(job, options.retentionSeconds)),
    refundOnFailure: options.refundOnFailure,
    // A job's event is recorded in the very step that finishes it.
    onTransition: (job) => {
      options.onJobTransition?.(job);
      if (isTerminal(job.status)) void events.enqueue(newEvent(`job.${job.status as 'succeeded' | 'failed' | 'canceled'}`, job.id));
    },
  });
  // Retention is enforced by a periodic sweep; unref'd so it never keeps the process alive.
  const sweeper = setInterval(() => {
    queue.sweep();
    ledger.prune((id) => queue.has(id));
    credits.prune();
  }, 60_000);
  sweeper.unref();

  const connections = new MemoryConnectionStore();
  const rateLimits = new MemoryRateLimitStore();
  events = options.events?.({ jobs: queue, connections }) ?? NO_EVENTS;
  return {
    kind: 'memory',
    connections,
    things: new MemoryThingStore(),
    ledger,
    credits,
    rateLimits,
    admissions: new SequentialAdmissionStore(connections, rateLimits, ledger, Date.now, credits),
    queue,
    jobIdKeys: new MemoryJobIdKeyStore(),
    oauth: new MemoryOAuthStateStore(),
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
