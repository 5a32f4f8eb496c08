import { SpanStatusCode } from '@opentelemetry/api';
import type { AttemptOutcome } from '../shared/domain/jobs/job-runner';
import { inSpan } from '../shared/platform/tracing/spans';
import { isTracingStarted } from '../shared/platform/tracing/tracing-state';

/** The job an attempt runs, as its span names it: ids and the operation only, never the input. */
export interface TracedAttempt {
  id: string;
  operation: string;
  attempt: number;
}

/**
 * Runs one attempt of a job inside a `processor <operation>` span, the child of BullMQ's consumer span. The
 * processor's progress becomes span events carrying the percentage only: a progress message is free text a
 * processor writes, and may quote the job's input, so it stays out of the trace (the job's own record keeps
 * it). `run` is handed the function that records a report. An attempt that does not succeed marks the span
 * failed with its outcome's kind, not its message. Without the tracing SDK the attempt runs as is: the API's
 * no-op span, its context and its attribute object cost the worker about 2.5 µs a job (bench/README.md).
 */
export function inAttemptSpan(job: TracedAttempt, run: (progressEvent: (percent: number) => void) => Promise<AttemptOutcome>) {
  if (!isTracingStarted()) return run(ignoreProgress);
  return inSpan(
    `processor ${job.operation}`,
    { attributes: { 'connector.job.id': job.id, 'connector.job.operation': job.operation, 'connector.job.attempt': job.attempt } },
    async (span) => {
      const outcome = await run((percent) => span.addEvent('progress', { 'connector.job.progress.percent': percent }));
      span.setAttribute('connector.job.outcome', outcome.kind);
      if (outcome.kind !== 'succeeded') span.setStatus({ code: SpanStatusCode.ERROR });
      return outcome;
    },
  );
}

/** The progress recorder of an attempt that is not traced. */
function ignoreProgress(): void {}
