import { createHash } from 'node:crypto';

/** The events the connector sends; the names are fixed by the contract. */
export const EVENT_TYPES = [
  'job.succeeded',
  'job.failed',
  'job.canceled',
  'connection.created',
  'connection.revoked',
  'credits.granted',
  'credits.low',
  'credits.expired',
  'credits.voided',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Whether `type` is one of the connector's own events (the others are declared by operations). */
export function isBuiltInType(type: string): type is EventType {
  return (EVENT_TYPES as readonly string[]).includes(type);
}

/**
 * An event as it waits for delivery: what happened to which job or connection (`ref`), and when. Its body is
 * built from the job or connection once what it announces is true (see event-facts.ts), and then kept, so
 * every attempt sends the same bytes.
 */
export interface QueuedEvent {
  /** The `webhook-id`: the same on every attempt, and derived from type and ref (see {@link eventId}). */
  readonly id: string;
  /** One of {@link EVENT_TYPES}, or a type an operation declares (`PaidJob.events`). */
  readonly type: string;
  /**
   * The job id or connection id the event is about; for a credits event, the entry that moved the balance;
   * for an operation's own event, the job id and the event's number within its type (`<job id>#<n>`).
   */
  readonly ref: string;
  /** ISO time the event was recorded: the body's `timestamp`. */
  readonly occurred_at: string;
  /**
   * The body's `data` when the event is recorded after the step that made it true, which fixed it (the credits
   * events: the balance that step left; an operation's own events: what its processor emitted); absent for an
   * event read from its job or connection when it is sent.
   */
  readonly data?: Readonly<Record<string, unknown>>;
}

/**
 * The event id: a digest of the type and the job or connection id (or credit entry id). A job succeeds at most
 * once and a connection is created and revoked at most once, so recording the same event twice (a worker that
 * died after recording it runs the job again; two replicas revoke one connection) gives the same id, which the
 * queue refuses to hold twice and a receiver deduplicates by.
 */
export function eventId(type: string, ref: string): string {
  return `evt_${createHash('sha256').update(`${type}\n${ref}`, 'utf8').digest('base64url').slice(0, 26)}`;
}

/** A new event about `ref`, recorded now. */
export function newEvent(type: EventType, ref: string, now = new Date()): QueuedEvent {
  return { id: eventId(type, ref), type, ref, occurred_at: now.toISOString() };
}
