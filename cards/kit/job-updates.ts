import { isTerminal, JOB_POLL_SECONDS, JOB_STATUSES, type Job, type JobStatus } from '../../shared/domain/jobs/job';
import { truncate } from './card-text';

/** The longest wait between refreshes, however many have failed in a row. */
export const MAX_POLL_MS = 30_000;
/** How long a message a card shows from a failed call may get, in characters. */
export const MESSAGE_LENGTH = 200;

/**
 * Milliseconds until the next refresh of `job`, or null when it is final and will not change. The wait is
 * the job's poll hint (the `Retry-After` REST sends with it, default {@link JOB_POLL_SECONDS}), doubled for
 * each refresh that failed in a row, and never more than {@link MAX_POLL_MS}.
 */
export function nextPollMs(job: Job, failuresInRow = 0, hintSeconds: number = JOB_POLL_SECONDS): number | null {
  if (isTerminal(job.status)) return null;
  const seconds = Number.isFinite(hintSeconds) && hintSeconds > 0 ? hintSeconds : JOB_POLL_SECONDS;
  return Math.min(seconds * 1000 * 2 ** Math.min(failuresInRow, 10), MAX_POLL_MS);
}

/**
 * The job to show when `incoming` arrives while `current` is shown: answers can cross (a refresh sent before a
 * Cancel may come back after it), so a snapshot of another job, or one that would take a final job back to
 * running, or forget a cancellation, is older than what is shown and is dropped.
 */
export function newerJob(current: Job | undefined, incoming: Job): Job {
  if (!current || current.id !== incoming.id) return current ?? incoming;
  if (isTerminal(current.status) && !isTerminal(incoming.status)) return current;
  if (current.cancel_requested_at !== null && incoming.cancel_requested_at === null) return current;
  // Queued after running is older, unless as many attempts started: then the job was handed back or awaits a retry.
  if (current.status === 'running' && incoming.status === 'queued' && incoming.attempts < current.attempts) return current;
  return incoming;
}

/** The part of a tool result the card reads (the extension hands it over as the host received it). */
export interface ToolResultLike {
  content?: ReadonlyArray<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What a tool result says to the card: a job, a message to show, or nothing it understands. */
export type ToolOutcome = { job: Job } | { message: string } | undefined;

/** True when `value` has the shape of a job as the connector answers it. */
export function isJob(value: unknown): value is Job {
  if (typeof value !== 'object' || value === null) return false;
  const job = value as Record<string, unknown>;
  return (
    typeof job.id === 'string' &&
    job.id.startsWith('job_') &&
    typeof job.operation === 'string' &&
    JOB_STATUSES.includes(job.status as JobStatus) &&
    typeof job.cost === 'number' &&
    typeof job.created_at === 'string'
  );
}

/** Reads a tool result: the job from its structured content (or its JSON text), or the error text it carries. */
export function readToolResult(result: ToolResultLike): ToolOutcome {
  const text = result.content?.find((block) => block.type === 'text')?.text;
  if (result.isError) return { message: truncate(text ?? 'The call failed.', MESSAGE_LENGTH) };
  if (isJob(result.structuredContent)) return { job: result.structuredContent };
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isJob(parsed) ? { job: parsed } : undefined;
  } catch {
    return undefined;
  }
}
