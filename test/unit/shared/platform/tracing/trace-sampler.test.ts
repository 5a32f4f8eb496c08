import { ROOT_CONTEXT, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace-node';
import { expect } from 'chai';
import { samplerFor } from '../../../../../shared/platform/tracing/trace-sampler';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
/** A context inside a sampled trace, as a job's span would be. */
const IN_A_TRACE = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED });

const decide = (sampler: ReturnType<typeof samplerFor>, name: string, context = ROOT_CONTEXT) =>
  sampler.shouldSample(context, TRACE_ID, name, SpanKind.INTERNAL, {}, []).decision;

describe('the trace sampler (samplerFor)', () => {
  const always = samplerFor({ sampler: 'always_on', samplerRatio: 1 });

  it("never starts a trace at BullMQ's housekeeping, and keeps it inside a job's trace", () => {
    for (const name of ['getNextJob jobs', 'moveStalledJobsToWait jobs', 'close jobs']) {
      expect(decide(always, name), name).to.equal(SamplingDecision.NOT_RECORD);
      expect(decide(always, name, IN_A_TRACE), `${name} in a trace`).to.equal(SamplingDecision.RECORD_AND_SAMPLED);
    }
  });

  it("leaves every other span to the configured sampler, with the span's own arguments", () => {
    expect(decide(always, 'process jobs')).to.equal(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(always, 'getNextJobs')).to.equal(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(samplerFor({ sampler: 'always_off', samplerRatio: 1 }), 'process jobs')).to.equal(SamplingDecision.NOT_RECORD);
    // Parent-based: the decision follows the context handed through.
    const parentOff = samplerFor({ sampler: 'parentbased_always_off', samplerRatio: 1 });
    expect(decide(parentOff, 'process jobs')).to.equal(SamplingDecision.NOT_RECORD);
    expect(decide(parentOff, 'process jobs', IN_A_TRACE)).to.equal(SamplingDecision.RECORD_AND_SAMPLED);
  });

  it('names the sampler it wraps', () => {
    expect(always.toString()).to.equal('WithoutQueueHousekeeping{AlwaysOnSampler}');
  });
});
