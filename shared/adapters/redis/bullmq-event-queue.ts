import { type JobsOptions, Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { EventQueue } from '../../domain/webhooks/event-queue';
import { retryAttempts } from '../../domain/webhooks/retry-schedule';
import type { QueuedEvent } from '../../domain/webhooks/webhook-event';
import { withinGrace } from '../../platform/lifecycle/within-grace';
import { addToQueue, queueTelemetry } from '../../platform/tracing/queue-telemetry';
import { isConnectionError } from './connection-error';
import type { RedisClient } from './redis-client';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';

/** What a delivery job carries: the event, and once an attempt has failed, the body every retry sends again. */
export interface BullEventData extends QueuedEvent {
  body?: string;
}

/** The backoff type delivery jobs name; the worker's custom strategy (retry-schedule.ts) computes it. */
export const WEBHOOK_BACKOFF = 'webhook';
/** Delivered events are kept this long, so that the same event recorded again within it is refused. */
const KEEP_DELIVERED_SECONDS = 86_400;
/** Abandoned events are kept this long, for an operator to look at. */
const KEEP_ABANDONED_SECONDS = 7 * 86_400;

/**
 * Records events as jobs of the `webhooks` BullMQ queue, where they survive restarts of every process; the
 * worker process sends them (worker/webhook-worker.ts). The job id is the event id, so BullMQ itself refuses a
 * second job for one event.
 */
export class BullmqEventQueue implements EventQueue {
  readonly enabled = true;
  private queue?: Queue<BullEventData>;
  private opening?: Promise<Queue<BullEventData>>;
  private closed = false;
  private readonly jobOptions: JobsOptions;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
    private readonly options: { retryBaseMs: number; logger: Logger },
  ) {
    this.jobOptions = {
      attempts: retryAttempts(options.retryBaseMs),
      backoff: { type: WEBHOOK_BACKOFF },
      removeOnComplete: { age: KEEP_DELIVERED_SECONDS },
      removeOnFail: { age: KEEP_ABANDONED_SECONDS },
    };
  }

  async enqueue(event: QueuedEvent): Promise<void> {
    await this.guard.run(async () => {
      const queue = await this.open();
      await addToQueue(queue, event.type, { ...event }, { ...this.jobOptions, jobId: event.id });
    });
  }

  async close(graceMs: number): Promise<void> {
    this.closed = true;
    const queue = this.queue ?? (await this.opening?.catch(() => undefined));
    if (!queue) return;
    await withinGrace(
      queue.close().catch(() => undefined),
      graceMs,
    );
  }

  /** The Queue, opened on first use on a connected client, as the job queue opens its own (see there why). */
  private open(): Promise<Queue<BullEventData>> {
    if (this.queue) return Promise.resolve(this.queue);
    if (this.closed) return Promise.reject(new Error('the event queue is closed'));
    if (this.client.status !== 'ready') return Promise.reject(new Error('redis is not connected'));
    this.opening ??= (async () => {
      const queue = new Queue<BullEventData>(this.keys.webhookQueueName, {
        connection: this.client,
        prefix: this.keys.bullPrefix,
        telemetry: queueTelemetry(),
      });
      queue.on('error', (error: Error) => {
        if (!isConnectionError(error)) this.options.logger.warn({ err: error }, 'event queue error');
      });
      try {
        await queue.waitUntilReady();
        this.queue = queue;
        return queue;
      } catch (error) {
        this.opening = undefined;
        await queue.close().catch(() => undefined);
        throw error;
      }
    })();
    return this.opening;
  }
}
