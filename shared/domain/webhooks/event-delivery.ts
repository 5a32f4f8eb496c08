import type { Logger } from 'pino';
import type { Metrics } from '../../platform/metrics/metrics';
import { type EventSources, establish, recheckDelay } from './event-facts';
import type { QueuedEvent } from './webhook-event';
import type { WebhookSender } from './webhook-sender';

/** The outcomes of `connector_webhook_deliveries_total`. */
export const DELIVERY_OUTCOMES = ['delivered', 'failed', 'abandoned', 'gone', 'skipped'] as const;

/**
 * What one attempt came to, for the queue to act on: `wait` (not true yet: look again after `delayMs`,
 * without spending an attempt), `skipped` (never true: done), `delivered` or `gone` (done), `failed` (retry
 * on the schedule, with the same `body`).
 */
export type DeliveryStep =
  | { kind: 'wait'; delayMs: number }
  | { kind: 'skipped' }
  | { kind: 'delivered' | 'gone' | 'failed'; body: string };

/**
 * One delivery attempt, the same for both backends: builds the body once what the event announces is true
 * (or reuses the body an earlier attempt sent, so every attempt carries the same bytes), sends it, counts and
 * logs the outcome. Neither the receiver's URL nor the body is logged: the body holds a person's data.
 */
export class EventDelivery {
  constructor(
    private readonly sources: EventSources,
    private readonly sender: WebhookSender,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
  ) {}

  /** Attempt number `attempt` (1 for the first); `last` when a failure would not be retried. */
  async attempt(event: QueuedEvent, body: string | undefined, attempt: number, last: boolean): Promise<DeliveryStep> {
    const log = { event_id: event.id, type: event.type, attempt };
    let payload = body;
    if (payload === undefined) {
      const fact = await establish(event, this.sources);
      if (fact.kind === 'pending') return { kind: 'wait', delayMs: recheckDelay(event) };
      if (fact.kind === 'never') {
        this.metrics.webhookDeliveries.inc({ type: event.type, outcome: 'skipped' });
        this.logger.info(log, 'webhook event skipped: what it announced did not happen');
        return { kind: 'skipped' };
      }
      payload = JSON.stringify({ type: event.type, timestamp: event.occurred_at, data: fact.data });
    }
    const result = await this.sender.send(event.id, payload);
    if (result.outcome === 'delivered') {
      this.metrics.webhookDeliveries.inc({ type: event.type, outcome: 'delivered' });
      this.logger.debug({ ...log, status: result.status }, 'webhook event delivered');
      return { kind: 'delivered', body: payload };
    }
    if (result.outcome === 'gone') {
      this.metrics.webhookDeliveries.inc({ type: event.type, outcome: 'gone' });
      this.logger.warn(log, 'webhook receiver answered 410 Gone: the event is not sent again');
      return { kind: 'gone', body: payload };
    }
    this.metrics.webhookDeliveries.inc({ type: event.type, outcome: last ? 'abandoned' : 'failed' });
    if (last) this.logger.error({ ...log, reason: result.reason }, 'webhook event abandoned: its last attempt failed');
    else this.logger.info({ ...log, reason: result.reason }, 'webhook attempt failed; it will be retried');
    return { kind: 'failed', body: payload };
  }

  /** Releases the sender's idle connections. */
  close(): void {
    this.sender.close();
  }
}
