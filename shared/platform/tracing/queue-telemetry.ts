import type { BullMQOtel } from 'bullmq-otel';
import { isTracingStarted } from './tracing-state';

let telemetry: BullMQOtel | undefined;

/**
 * BullMQ's `telemetry` option when this process traces, else undefined (BullMQ then calls no tracer at all).
 * With it, `Queue.add` records a producer span and stores its context in the job (`opts.telemetry.metadata`);
 * the `Worker` that takes the job, in whichever process and however much later, starts its consumer span as
 * that producer span's child. Every queue and worker must get it for a trace to cross the queue.
 */
export function queueTelemetry(): BullMQOtel | undefined {
  if (!isTracingStarted()) return undefined;
  // Loaded only when tracing is on, like the SDK.
  telemetry ??= new (require('bullmq-otel') as typeof import('bullmq-otel')).BullMQOtel({ tracerName: 'bullmq' });
  return telemetry;
}
