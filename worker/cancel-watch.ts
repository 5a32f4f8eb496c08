import { CANCEL_REQUESTED_FIELD } from '../shared/adapters/redis/bullmq-job-record';
import type { RedisClient } from '../shared/adapters/redis/redis-client';

/** How often the worker looks for cancel requests on the jobs it runs: the longest a signal may lag. */
export const CANCEL_POLL_MS = 250;

/** Fires the abort controllers of running jobs whose cancel was requested, whichever API asked. */
export interface CancelWatch {
  /**
   * Fires `controller` once a cancel of the job stored at `jobKey` (its BullMQ hash) is requested; returns the
   * function that stops watching it (call it when the attempt ends).
   */
  abortOnCancel(jobKey: string, controller: AbortController): () => void;
  /** Whether a cancel of the job stored at `jobKey` has been requested: one read. */
  requested(jobKey: string): Promise<boolean>;
  close(): void;
}

/**
 * One poll for all the jobs this worker runs, and none while it runs nothing: each tick reads one hash field
 * per running job (a few commands a second per worker), which is cheaper and simpler than a channel every
 * API would have to publish to and every worker keep subscribed. A tick still in flight (Redis slow or down)
 * is not doubled by the next one.
 */
export function createCancelWatch(client: RedisClient, intervalMs = CANCEL_POLL_MS): CancelWatch {
  const watched = new Map<string, AbortController>();
  let timer: NodeJS.Timeout | undefined;
  let polling = false;

  const requested = async (jobKey: string) => (await client.hexists(jobKey, CANCEL_REQUESTED_FIELD)) === 1;
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      const entries = [...watched];
      const marks = await Promise.all(entries.map(([key]) => requested(key).catch(() => false)));
      entries.forEach(([key, controller], i) => {
        if (marks[i]) {
          controller.abort();
          watched.delete(key);
        }
      });
    } finally {
      polling = false;
      if (watched.size === 0 && timer) {
        clearInterval(timer);
        timer = undefined;
      }
    }
  };

  return {
    abortOnCancel(jobKey, controller) {
      watched.set(jobKey, controller);
      if (!timer) {
        timer = setInterval(() => void poll(), intervalMs);
        timer.unref();
      }
      return () => {
        if (watched.get(jobKey) === controller) watched.delete(jobKey);
      };
    },
    requested,
    close() {
      clearInterval(timer);
      timer = undefined;
      watched.clear();
    },
  };
}
