import { JobError } from '../../platform/errors/job-error';
import type { JobPolicy, ProcessorMap } from './processor';
import { createProgressReporter, type JobProgress, type ProgressReporter } from './progress-reporter';

/** The outcome of one attempt, as both the in-memory queue and the BullMQ worker record it. */
export type AttemptOutcome =
  | { kind: 'succeeded'; result: Record<string, unknown> }
  | { kind: 'retry'; message: string }
  | { kind: 'failed'; message: string };

/** Shown when a processor throws something other than a `JobError`: never the cause itself. */
export const GENERIC_JOB_FAILURE = 'The job could not be completed.';

/** The safe message of an attempt stopped by its operation's timeout. */
export function timeoutMessage(timeoutMs: number): string {
  return `The job took longer than ${Math.round(timeoutMs / 100) / 10} s.`;
}

/** What one attempt needs besides the processors and the job. */
export interface AttemptOptions {
  attempt: number;
  policy: Pick<JobPolicy, 'attempts' | 'timeoutMs'>;
  /** Stores a progress report (already coalesced and ordered here). */
  saveProgress: (progress: JobProgress) => Promise<void>;
  /** This attempt's controller: its signal is the processor's; whoever holds it may abort the attempt. */
  controller?: AbortController;
  onUnexpected?: (error: unknown) => void;
}

/**
 * Runs one attempt of a job and classifies the outcome. Unknown errors become a generic, safe message so a
 * library's message or a stack never reaches the person; the caller logs the cause. When the operation's
 * timeout passes, the attempt's signal fires and the attempt fails at once with a safe message, whether or
 * not the processor stops (what it returns or reports later is dropped). Pending progress is written before it resolves.
 */
export async function runAttempt(
  processors: ProcessorMap,
  job: { id: string; operation: string; input: Record<string, unknown> },
  { attempt, policy, saveProgress, controller = new AbortController(), onUnexpected = () => {} }: AttemptOptions,
): Promise<AttemptOutcome> {
  const processor = processors.get(job.operation);
  if (!processor) return { kind: 'failed', message: GENERIC_JOB_FAILURE };
  // Made on the first report only: a processor that never reports costs nothing.
  let reporter: ProgressReporter | undefined;
  let ended = false;
  const progress = (percent: number, message?: string): void => {
    if (ended && reporter === undefined) return;
    reporter ??= createProgressReporter(saveProgress, { onError: onUnexpected });
    reporter.report(percent, message);
  };
  const { timeoutMs } = policy;
  let timer: NodeJS.Timeout | undefined;
  const timedOut =
    timeoutMs === undefined
      ? undefined
      : new Promise<JobError>((resolve) => {
          timer = setTimeout(() => {
            const error = new JobError(timeoutMessage(timeoutMs));
            controller.abort(error);
            resolve(error);
          }, timeoutMs);
        });
  const context = { jobId: job.id, attempt, signal: controller.signal, progress };
  try {
    const run = processor(job.input, context).then((result) => ({ result }));
    const settled = timedOut === undefined ? await run : await Promise.race([run, timedOut.then((error) => Promise.reject(error))]);
    // A processor may type its result as an interface; at run time it is the plain JSON object stored.
    return { kind: 'succeeded', result: settled.result as Record<string, unknown> };
  } catch (thrown) {
    // A processor stopping because its signal fired throws whatever its library throws on abort: the
    // reason the signal was given (a safe JobError) is the outcome, not that.
    const reason: unknown = controller.signal.aborted ? controller.signal.reason : undefined;
    const error = reason instanceof JobError ? reason : thrown;
    const safe = error instanceof JobError;
    // A processor stopping because its job was canceled is expected, not a fault to log.
    if (!safe && !controller.signal.aborted) onUnexpected(error);
    const message = safe ? error.message : GENERIC_JOB_FAILURE;
    const retryable = safe ? error.retryable : true;
    return retryable && attempt < policy.attempts ? { kind: 'retry', message } : { kind: 'failed', message };
  } finally {
    clearTimeout(timer);
    ended = true;
    await reporter?.close();
  }
}

/** Exponential backoff: `base`, `2·base`, `4·base`, … before attempt 2, 3, 4, … */
export function backoffDelay(baseMs: number, attemptJustFailed: number): number {
  return baseMs * 2 ** (attemptJustFailed - 1);
}
