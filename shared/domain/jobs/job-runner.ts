import { JobError } from '../../platform/errors/job-error';
import type { ProcessorMap } from './processor';

/** The outcome of one attempt, as both the in-memory queue and the BullMQ worker record it. */
export type AttemptOutcome =
  | { kind: 'succeeded'; result: Record<string, unknown> }
  | { kind: 'retry'; message: string }
  | { kind: 'failed'; message: string };

/** Shown when a processor throws something other than a `JobError`: never the cause itself. */
export const GENERIC_JOB_FAILURE = 'The job could not be completed.';

/**
 * Runs one attempt of a job and classifies the outcome. Unknown errors become a generic, safe message so a
 * library's message or a stack never reaches the person; the caller logs the cause.
 */
export async function runAttempt(
  processors: ProcessorMap,
  job: { id: string; operation: string; input: Record<string, unknown> },
  attempt: number,
  maxAttempts: number,
  onUnexpected: (error: unknown) => void = () => {},
  signal: AbortSignal = new AbortController().signal,
): Promise<AttemptOutcome> {
  const processor = processors.get(job.operation);
  if (!processor) return { kind: 'failed', message: GENERIC_JOB_FAILURE };
  try {
    const result = await processor(job.input, { jobId: job.id, attempt, signal });
    return { kind: 'succeeded', result };
  } catch (error) {
    const safe = error instanceof JobError;
    // A processor stopping because its job was canceled is expected, not a fault to log.
    if (!safe && !signal.aborted) onUnexpected(error);
    const message = safe ? error.message : GENERIC_JOB_FAILURE;
    const retryable = safe ? error.retryable : true;
    return retryable && attempt < maxAttempts ? { kind: 'retry', message } : { kind: 'failed', message };
  }
}

/** Exponential backoff: `base`, `2·base`, `4·base`, … before attempt 2, 3, 4, … */
export function backoffDelay(baseMs: number, attemptJustFailed: number): number {
  return baseMs * 2 ** (attemptJustFailed - 1);
}
