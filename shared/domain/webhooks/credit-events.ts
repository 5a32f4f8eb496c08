import type { CreditEvents } from '../credits/credit-service';
import type { CreditEntry } from '../credits/credit-store';
import type { EventQueue } from './event-queue';
import { eventId, type QueuedEvent } from './webhook-event';

/**
 * `credits.granted`, for the grant or adjustment `entry` made: data `{subject, grant_id, credits, balance}`,
 * the balance being the one the grant left. Recorded by the call that made the grant, after its step, with the
 * data fixed there; its id is the entry's, so recording it twice is one event.
 */
export function creditsGrantedEvent(subject: string, entry: CreditEntry, balance: number, now = new Date()): QueuedEvent {
  return {
    id: eventId('credits.granted', entry.id),
    type: 'credits.granted',
    ref: entry.id,
    occurred_at: now.toISOString(),
    data: { subject, grant_id: entry.grant_id ?? null, credits: entry.credits, balance },
  };
}

/** A step that took a subject's balance below the low threshold: its entry (a hold, an adjustment, a void or an expiry) and the balance it left. */
export interface LowCrossing {
  subject: string;
  entryId: string;
  balance: number;
  threshold: number;
}

/**
 * `credits.low`, for the step (its entry: a hold, an adjustment, a void or an expiry) that took the balance from
 * at least `threshold` to below it, whatever lifted it before (docs/webhooks.md, "When credits.low is sent"):
 * data `{subject, balance, threshold}`. One step crosses at a time, so concurrent spends record one event per crossing.
 */
export function creditsLowEvent({ subject, entryId, balance, threshold }: LowCrossing, now = new Date()): QueuedEvent {
  return {
    id: eventId('credits.low', entryId),
    type: 'credits.low',
    ref: entryId,
    occurred_at: now.toISOString(),
    data: { subject, balance, threshold },
  };
}

/**
 * `credits.expired` or `credits.voided`, for the `expire` or `void` entry that took the unspent rest of a grant
 * out of the balance: data `{subject, grant_id, credits, balance}`, the balance that step left. Its id is the
 * entry's, so recording it twice is one event.
 */
export function creditsRemovedEvent(subject: string, entry: CreditEntry, balance: number, now = new Date()): QueuedEvent {
  const type = entry.kind === 'void' ? 'credits.voided' : 'credits.expired';
  return {
    id: eventId(type, entry.id),
    type,
    ref: entry.id,
    occurred_at: now.toISOString(),
    data: { subject, grant_id: entry.grant_id ?? null, credits: entry.credits, balance },
  };
}

/** The credit accounts' events on an event queue, each stored before the call that records it goes on. */
export function creditEventsOn(queue: EventQueue): CreditEvents {
  return {
    granted: (subject, entry, balance, at) => queue.enqueue(creditsGrantedEvent(subject, entry, balance, at)),
    fellLow: (subject, entryId, balance, threshold) => queue.enqueue(creditsLowEvent({ subject, entryId, balance, threshold })),
    removed: (subject, entry, balance) => queue.enqueue(creditsRemovedEvent(subject, entry, balance)),
  };
}
