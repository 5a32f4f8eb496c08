import { context, isSpanContextValid, propagation, trace } from '@opentelemetry/api';
import type { JobsOptions } from 'bullmq';
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

/** What adding a job needs of a BullMQ `Queue`. */
export interface JobAdding<Data, Job> {
  add(name: string, data: Data, opts?: JobsOptions): Promise<Job>;
}

/**
 * `Queue.addJob`: `add` without its telemetry, which BullMQ documents for this use (wrapping `add` with other
 * telemetry) but declares `protected`, for subclasses; a subclass of the generic `Queue` per queue would only
 * repeat its eight type parameters.
 */
type WithoutTelemetry<Data, Job> = { addJob(name: string, data: Data, opts?: JobsOptions): Promise<Job> };

/**
 * Adds a job as `Queue.add` does, except inside a trace that was sampled out: there BullMQ would still start a
 * producer span (which the sampler drops), enter its context and serialise it. Instead the job is added
 * without telemetry, carrying the active trace context where BullMQ puts it (`opts.telemetry.metadata`, the
 * propagator's fields as JSON), so the worker's consumer span continues the trace, sampled out in turn.
 * Outside any trace, in a recorded one, or with tracing off, this is `queue.add`.
 */
export function addToQueue<Data, Job>(queue: JobAdding<Data, Job>, name: string, data: Data, opts: JobsOptions): Promise<Job> {
  const span = isTracingStarted() ? trace.getActiveSpan() : undefined;
  if (!span || span.isRecording() || !isSpanContextValid(span.spanContext())) return queue.add(name, data, opts);
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return (queue as unknown as WithoutTelemetry<Data, Job>).addJob(name, data, {
    ...opts,
    telemetry: { ...opts.telemetry, metadata: JSON.stringify(carrier) },
  });
}
