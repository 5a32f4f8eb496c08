import { trace } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  SamplingDecision,
  type SamplingResult,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-node';
import type { TracingSettings } from '../config/tracing-settings';

/**
 * BullMQ's telemetry also wraps its own bookkeeping (fetching the next job, the stalled-job check, closing),
 * which runs every few seconds in every worker whether or not there is work: as roots of traces of their own
 * they would bury the jobs' traces in noise and cost an export each. Inside a job's trace they are kept.
 */
const QUEUE_HOUSEKEEPING = /^(getNextJob|moveStalledJobsToWait|startStalledCheckTimer|close|pause|resume|rateLimit) /;

/** Never starts a trace at queue housekeeping; every other decision is the configured sampler's. */
class WithoutQueueHousekeeping implements Sampler {
  constructor(private readonly inner: Sampler) {}

  shouldSample(...args: Parameters<Sampler['shouldSample']>): SamplingResult {
    const [context, , name] = args;
    if (QUEUE_HOUSEKEEPING.test(name) && !trace.getSpanContext(context)) return { decision: SamplingDecision.NOT_RECORD };
    return this.inner.shouldSample(...args);
  }

  toString(): string {
    return `WithoutQueueHousekeeping{${this.inner.toString()}}`;
  }
}

/** The sampler `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` name (parent-based unless told otherwise). */
export function samplerFor(settings: Pick<TracingSettings, 'sampler' | 'samplerRatio'>): Sampler {
  const ratio = new TraceIdRatioBasedSampler(settings.samplerRatio);
  const chosen: Record<TracingSettings['sampler'], () => Sampler> = {
    always_on: () => new AlwaysOnSampler(),
    always_off: () => new AlwaysOffSampler(),
    traceidratio: () => ratio,
    parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
    parentbased_traceidratio: () => new ParentBasedSampler({ root: ratio }),
  };
  return new WithoutQueueHousekeeping(chosen[settings.sampler]());
}
