import type { JobRecord } from '../jobs/job';
import type { ProcessorMap } from '../jobs/processor';
import type { Backend } from '../stores/backend';
import { SequentialAdmissionStore } from '../stores/sequential-admission-store';
import { MemoryConnectionStore } from './memory-connection-store';
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
  retentionSeconds: number;
  onUnexpectedJobError?: (error: unknown, job: JobRecord) => void;
  onJobTransition?: (job: JobRecord) => void;
}

/** The embedded backend: every store in memory and jobs run in this process. For one process only. */
export function createMemoryBackend(options: MemoryBackendOptions): Backend {
  const ledger = new MemoryLedgerStore();
  const queue = new MemoryJobQueue({
    processors: options.processors,
    concurrency: options.concurrency,
    attempts: options.attempts,
    backoffMs: options.backoffMs,
    retentionMs: options.retentionSeconds * 1000,
    onUnexpectedError: options.onUnexpectedJobError,
    onTransition: options.onJobTransition,
  });
  // Retention is enforced by a periodic sweep; unref'd so it never keeps the process alive.
  const sweeper = setInterval(() => {
    queue.sweep();
    ledger.prune((id) => queue.has(id));
  }, 60_000);
  sweeper.unref();

  const connections = new MemoryConnectionStore();
  const rateLimits = new MemoryRateLimitStore();
  return {
    kind: 'memory',
    connections,
    things: new MemoryThingStore(),
    ledger,
    rateLimits,
    admissions: new SequentialAdmissionStore(connections, rateLimits, ledger),
    queue,
    jobIdKeys: new MemoryJobIdKeyStore(),
    oauth: new MemoryOAuthStateStore(),
    ready: async () => true,
    close: async (graceMs) => {
      clearInterval(sweeper);
      await queue.close(graceMs);
    },
  };
}
