import type { QueuedEvent } from './webhook-event';

/**
 * Where events are recorded for delivery: a BullMQ queue in Redis, or an in-process queue in the embedded
 * backend. Recording is all a caller waits for; sending happens elsewhere, so a slow or dead receiver never
 * delays an answer or a job.
 */
export interface EventQueue {
  /** False when no receiver is configured: nothing is recorded. */
  readonly enabled: boolean;
  /** Records the event unless one with its id is already held; resolves once it is stored. */
  enqueue(event: QueuedEvent): Promise<void>;
  /** Stops sending (in-flight sends get `graceMs`) and releases what the queue holds. */
  close(graceMs: number): Promise<void>;
}

/** The queue of a connector without a receiver. */
export const NO_EVENTS: EventQueue = {
  enabled: false,
  enqueue: async () => {},
  close: async () => {},
};
