import { withinGrace } from '../../platform/lifecycle/within-grace';
import { EventDeclarationError } from './declared-events';
import { JobError } from './job-error';
import type { JobPolicy, ProcessorMap } from './processor';
import { type AttemptReport, createProgressReporter, type PartialResult, type ProgressReporter } from './progress-reporter';

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
  /** Stores a progress report and the latest partial result (already coalesced and ordered here). */
  saveProgress: (report: AttemptReport) => Promise<void>;
  /** This attempt's controller: its signal is the processor's; whoever holds it may abort the attempt. */
  controller?: AbortController;
  onUnexpected?: (error: unknown) => void;
  /** Records an event the processor emitted (already checked against its declaration); none: emits record nothing. */
  announce?: (emitted: EmittedEvent) => Promise<void>;
}

/** An event a processor emitted, numbered within its type and attempt (1 for the first of its type). */
export interface EmittedEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly sequence: number;
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
  options: AttemptOptions,
): Promise<AttemptOutcome> {
  const { attempt, policy, saveProgress, controller = new AbortController(), onUnexpected = () => {} } = options;
  const processor = processors.get(job.operation);
  if (!processor) return { kind: 'failed', message: GENERIC_JOB_FAILURE };
  const reports = lazyReporter(saveProgress, onUnexpected);
  const events = emitter(options.announce, onUnexpected);
  try {
    const context = {
      jobId: job.id,
      attempt,
      signal: controller.signal,
      progress: reports.report,
      partial: reports.publish,
      emit: events.emit,
    };
    const result = await withinTimeout(policy.timeoutMs, controller, processor(job.input, context));
    // A processor may type its result as an interface; at run time it is the plain JSON object stored.
    return { kind: 'succeeded', result: result as Record<string, unknown> };
  } catch (thrown) {
    return failureOf(thrown, controller, attempt < policy.attempts, onUnexpected);
  } finally {
    // Most attempts leave nothing to wait for: no promise is made for them.
    const reported = reports.close();
    const emitted = events.close();
    if (reported || emitted) await Promise.all([reported, emitted]);
  }
}

/**
 * The attempt's `emit`: numbers each event within its type (its id's part), and keeps what is being recorded
 * so that the attempt ends only once every event it emitted is stored, awaited by the processor or not. A
 * failed store rejects the processor's `emit` (and is reported); emits after the attempt ended are dropped.
 * `close` answers a promise only while events are being recorded.
 */
function emitter(announce: AttemptOptions['announce'], onError: (error: unknown) => void) {
  let counts: Map<string, number> | undefined;
  let recording: Set<Promise<void>> | undefined;
  let ended = false;
  return {
    emit(type: string, data: Record<string, unknown>): Promise<void> {
      if (ended || !announce) return Promise.resolve();
      counts ??= new Map();
      const sequence = (counts.get(type) ?? 0) + 1;
      counts.set(type, sequence);
      const stored = announce({ type, data, sequence });
      recording ??= new Set();
      const kept = recording;
      const tracked = stored.catch(onError).finally(() => kept.delete(tracked));
      kept.add(tracked);
      return stored;
    },
    close(): Promise<unknown> | undefined {
      ended = true;
      return recording?.size ? Promise.all([...recording]) : undefined;
    },
  };
}

/**
 * The attempt's progress, reported through a reporter made on the first report only (a processor that never
 * reports costs nothing). Once closed (the attempt has ended), later reports are dropped; `close` answers a
 * promise only when there is a reporter to settle.
 */
function lazyReporter(save: (report: AttemptReport) => Promise<void>, onError: (error: unknown) => void) {
  let reporter: ProgressReporter | undefined;
  let ended = false;
  const reporterNow = (): ProgressReporter | undefined => {
    if (ended && reporter === undefined) return undefined;
    reporter ??= createProgressReporter(save, { onError });
    return reporter;
  };
  return {
    report(percent: number, message?: string): void {
      reporterNow()?.report(percent, message);
    },
    /** A partial result, checked by the processor's wrapper (`buildProcessors`) before it comes here. */
    publish(partial: object): void {
      reporterNow()?.publish(partial as PartialResult);
    },
    close(): Promise<void> | undefined {
      ended = true;
      return reporter?.close();
    },
  };
}

/**
 * The operation's timeout over an attempt: when it passes, the signal fires and the attempt fails with its safe
 * `JobError`. Without a timeout the attempt's own promise is answered, adding no turn to every job.
 */
function withinTimeout<T>(timeoutMs: number | undefined, controller: AbortController, run: Promise<T>): Promise<T> {
  return timeoutMs === undefined ? run : timedOut(timeoutMs, controller, run);
}

async function timedOut<T>(timeoutMs: number, controller: AbortController, run: Promise<T>): Promise<T> {
  if (await withinGrace(run, timeoutMs)) return run;
  const error = new JobError(timeoutMessage(timeoutMs));
  controller.abort(error);
  throw error;
}

/** A failed attempt's outcome: a safe message, retried while attempts are left unless its `JobError` says not to. */
function failureOf(
  thrown: unknown,
  controller: AbortController,
  attemptsLeft: boolean,
  onUnexpected: (error: unknown) => void,
): AttemptOutcome {
  // A processor stopping because its signal fired throws whatever its library throws on abort: the
  // reason the signal was given (a safe JobError) is the outcome, not that.
  const reason: unknown = controller.signal.aborted ? controller.signal.reason : undefined;
  const error = reason instanceof JobError ? reason : thrown;
  // A mistake in the processor's events is made again by every attempt: it fails the job at once.
  if (error instanceof EventDeclarationError) {
    onUnexpected(error);
    return { kind: 'failed', message: GENERIC_JOB_FAILURE };
  }
  if (!(error instanceof JobError)) {
    // A processor stopping because its job was canceled is expected, not a fault to log.
    if (!controller.signal.aborted) onUnexpected(error);
    return attemptsLeft ? { kind: 'retry', message: GENERIC_JOB_FAILURE } : { kind: 'failed', message: GENERIC_JOB_FAILURE };
  }
  return error.retryable && attemptsLeft ? { kind: 'retry', message: error.message } : { kind: 'failed', message: error.message };
}

/** Exponential backoff: `base`, `2·base`, `4·base`, … before attempt 2, 3, 4, … */
export function backoffDelay(baseMs: number, attemptJustFailed: number): number {
  return baseMs * 2 ** (attemptJustFailed - 1);
}
