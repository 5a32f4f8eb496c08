import type { EventQueue } from './event-queue';

/**
 * The event queue of a receiver that asked for a subset (`WEBHOOK_EVENT_TYPES`): an event of another type is
 * not recorded at all, so it is never sent, counted or retried. The queue's own synchronous part (the embedded
 * queue holds an event the moment it is called) is kept: a wanted event goes straight through.
 */
export function filteredEvents(queue: EventQueue, types: readonly string[] | undefined): EventQueue {
  if (!types || !queue.enabled) return queue;
  const wanted = new Set(types);
  return {
    enabled: true,
    enqueue: (event) => (wanted.has(event.type) ? queue.enqueue(event) : Promise.resolve()),
    close: (graceMs) => queue.close(graceMs),
  };
}
