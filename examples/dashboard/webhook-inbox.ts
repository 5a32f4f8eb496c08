import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** An event the connector sent, verified, as recorded once. */
export interface RecordedEvent {
  id: string;
  type: string;
  timestamp: string;
  data: { subject?: string; connection_id?: string; id?: string; [field: string]: unknown };
}

/** How many event ids are remembered for deduplication; in production, a table with a unique key on the id. */
const REMEMBERED_IDS = 10_000;

/**
 * Verifies events with the `standardwebhooks` package and records each `webhook-id` once: the connector
 * delivers at least once, so the same event may arrive again (a retry after an answer that was lost).
 */
export class WebhookInbox {
  /** Recorded events, newest first (the latest 100). */
  readonly events: RecordedEvent[] = [];
  private readonly seen = new Set<string>();
  private readonly webhook: Webhook;

  constructor(secret: string) {
    this.webhook = new Webhook(secret);
  }

  /**
   * Verifies the raw body (as received, before any JSON parsing) against its three headers; throws when it
   * was not signed with the secret or is more than five minutes old. Answers whether it was new.
   */
  receive(body: string, headers: IncomingHttpHeaders): boolean {
    const header = (name: string) => (typeof headers[name] === 'string' ? (headers[name] as string) : '');
    const id = header('webhook-id');
    const event = this.webhook.verify(body, {
      'webhook-id': id,
      'webhook-timestamp': header('webhook-timestamp'),
      'webhook-signature': header('webhook-signature'),
    }) as Omit<RecordedEvent, 'id'>;
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    // A Set iterates in insertion order: the first id is the oldest.
    if (this.seen.size > REMEMBERED_IDS) this.seen.delete(this.seen.values().next().value!);
    this.events.unshift({ id, type: event.type, timestamp: event.timestamp, data: event.data ?? {} });
    this.events.length = Math.min(this.events.length, 100);
    return true;
  }
}
