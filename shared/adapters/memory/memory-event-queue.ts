import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { DeliveryStep, EventDelivery } from '../../domain/webhooks/event-delivery';
import type { EventQueue } from '../../domain/webhooks/event-queue';
import { retryAttempts, retryDelay } from '../../domain/webhooks/retry-schedule';
import type { QueuedEvent } from '../../domain/webhooks/webhook-event';
import { withinGrace } from '../../platform/lifecycle/within-grace';
import type { Metrics } from '../../platform/metrics/metrics';

/** Events held at once; past this a new event is dropped (and counted abandoned) rather than filling memory. */
const MAX_HELD = 10_000;
/** Ids of finished events are remembered this long, so that the same event recorded again is not sent twice. */
const REMEMBERED_MS = 24 * 3_600_000;

/** How the in-process queue delivers. */
export interface MemoryEventQueueOptions {
  delivery: EventDelivery;
  retryBaseMs: number;
  concurrency: number;
  metrics: Metrics;
  logger: Logger;
}

interface Held {
  event: QueuedEvent;
  /** Attempts made so far (a `wait` is not one). */
  attempts: number;
  /** The body the first attempt sent; every later attempt sends it again. */
  body?: string;
}

/**
 * The embedded backend's event queue: deliveries run in this process, on the same schedule and with the same
 * attempt rules as the worker's BullMQ queue, at most `concurrency` at a time. Like every embedded state,
 * events not yet delivered are lost on exit.
 */
export class MemoryEventQueue implements EventQueue {
  readonly enabled = true;
  private readonly held = new Map<string, Held>();
  private readonly finished = new LRUCache<string, true>({ max: MAX_HELD, ttl: REMEMBERED_MS });
  private readonly due: Held[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly idle = new Set<() => void>();
  private readonly maxAttempts: number;
  private sending = 0;
  private closing = false;

  constructor(private readonly options: MemoryEventQueueOptions) {
    this.maxAttempts = retryAttempts(options.retryBaseMs);
  }

  /** Events recorded and not yet finished (delivered, gone, skipped or abandoned). */
  get size(): number {
    return this.held.size;
  }

  async enqueue(event: QueuedEvent): Promise<void> {
    if (this.closing || this.held.has(event.id) || this.finished.has(event.id)) return;
    if (this.held.size >= MAX_HELD) {
      this.options.metrics.webhookDeliveries.inc({ type: event.type, outcome: 'abandoned' });
      this.options.logger.error(
        { event_id: event.id, type: event.type, held: this.held.size },
        'webhook event dropped: too many events are waiting for the receiver',
      );
      return;
    }
    const entry: Held = { event, attempts: 0 };
    this.held.set(event.id, entry);
    this.due.push(entry);
    // Sending starts after the caller's step has finished: the event may have been recorded just before it.
    setImmediate(() => this.pump());
  }

  async close(graceMs: number): Promise<void> {
    this.closing = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.sending > 0) {
      await withinGrace(new Promise<void>((resolve) => this.idle.add(resolve)), graceMs);
    }
    this.options.delivery.close();
  }

  private pump(): void {
    while (!this.closing && this.sending < this.options.concurrency && this.due.length > 0) void this.run(this.due.shift()!);
  }

  private async run(entry: Held): Promise<void> {
    this.sending++;
    const attempt = entry.attempts + 1;
    const last = attempt >= this.maxAttempts;
    let step: DeliveryStep | undefined;
    try {
      step = await this.options.delivery.attempt(entry.event, entry.body, attempt, last);
    } catch (error) {
      // Only a failing read of the job or connection lands here; it costs an attempt, like a failed send.
      this.options.logger.warn({ err: error, event_id: entry.event.id, attempt }, 'webhook attempt could not be prepared');
    }
    this.sending--;
    if (step?.kind === 'wait') this.later(entry, step.delayMs);
    else if ((step === undefined || step.kind === 'failed') && !last) {
      entry.attempts = attempt;
      if (step) entry.body = step.body;
      this.later(entry, retryDelay(this.options.retryBaseMs, attempt));
    } else {
      this.held.delete(entry.event.id);
      this.finished.set(entry.event.id, true);
    }
    if (this.sending === 0) for (const resolve of this.idle) resolve();
    this.pump();
  }

  private later(entry: Held, delayMs: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.due.push(entry);
      this.pump();
    }, delayMs);
    this.timers.add(timer);
  }
}
