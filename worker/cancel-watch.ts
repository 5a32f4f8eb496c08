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
  // One entry per watch, by identity: a set of small objects is cheaper per job than a map keyed by a job key
  // made anew for each job, and a job watched again by a later attempt is a watch of its own.
  const watched = new Set<{ jobKey: string; controller: AbortController }>();
  let timer: NodeJS.Timeout | undefined;
  let polling = false;

  const requested = async (jobKey: string) => (await client.hexists(jobKey, CANCEL_REQUESTED_FIELD)) === 1;
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      const entries = [...watched];
      const marks = await Promise.all(entries.map(({ jobKey }) => requested(jobKey).catch(() => false)));
      entries.forEach((entry, i) => {
        if (marks[i]) {
          entry.controller.abort();
          watched.delete(entry);
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
      const entry = { jobKey, controller };
      watched.add(entry);
      if (!timer) {
        timer = setInterval(() => void poll(), intervalMs);
        timer.unref();
      }
      return () => {
        watched.delete(entry);
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
