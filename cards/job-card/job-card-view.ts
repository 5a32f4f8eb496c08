import { isTerminal, JOB_POLL_SECONDS, JOB_STATUSES, type Job, type JobStatus } from '../../shared/domain/jobs/job';

/** The colour family a status is shown in. */
export type StatusTone = 'waiting' | 'working' | 'success' | 'danger' | 'muted';

/** One field of a job's result, as the card lists it. */
export interface ResultField {
  name: string;
  value: string;
}

/** How the card shows times: the host's locale and time zone when it sent them. */
export interface TimeFormat {
  locale?: string;
  timeZone?: string;
}

/** Everything the card shows for one job, already worded: the page only puts it into the DOM. */
export interface JobCardView {
  id: string;
  operation: string;
  status: JobStatus;
  statusLabel: string;
  tone: StatusTone;
  final: boolean;
  /** 0-100, or null when nothing is known yet (an indeterminate bar). */
  percent: number | null;
  progressMessage: string;
  costText: string;
  /** Null when nothing was refunded. */
  refundText: string | null;
  /**
   * What a cancel after the start kept and gave back (`Canceled at 40 %: 1 credit kept, 2 refunded`); null
   * unless the job was canceled while an attempt ran and had a price.
   */
  keptText: string | null;
  createdText: string;
  /** Null until the job is final. */
  finishedText: string | null;
  inputSummary: string;
  resultFields: ResultField[];
  /** What the job has produced so far, while it runs (its partial result's fields); the result replaces it. */
  partialFields: ResultField[];
  /** The job's own safe error message, when it failed. */
  errorText: string | null;
  /** True while Cancel may be offered: not final and not already asked to stop. */
  canCancel: boolean;
}

/** How long an input summary may get, in characters. */
export const INPUT_SUMMARY_LENGTH = 140;
/** How many result fields the card lists, and how long each value may get. */
export const RESULT_FIELD_LIMIT = 12;
export const RESULT_VALUE_LENGTH = 200;
/** The longest wait between refreshes, however many have failed in a row. */
export const MAX_POLL_MS = 30_000;

const STATUS_LABELS: Readonly<Record<JobStatus, string>> = {
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  canceled: 'Canceled',
};

const STATUS_TONES: Readonly<Record<JobStatus, StatusTone>> = {
  queued: 'waiting',
  running: 'working',
  succeeded: 'success',
  failed: 'danger',
  canceled: 'muted',
};

/** `3 credits`, `1 credit`, `free`. */
export function creditsText(credits: number): string {
  if (credits === 0) return 'free';
  return `${credits} ${credits === 1 ? 'credit' : 'credits'}`;
}

/** Cuts `text` to `length` characters, marking the cut with an ellipsis. */
export function truncate(text: string, length: number): string {
  const chars = [...text];
  return chars.length <= length ? text : `${chars.slice(0, length - 1).join('')}…`;
}

/** One value as a short line of text: strings as they are, everything else as compact JSON. */
function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value) ?? String(value);
}

/** The input in one short line (`text: "Hello…", lang: "en"`), whatever the operation's input looks like. */
export function summariseInput(input: Record<string, unknown>, length = INPUT_SUMMARY_LENGTH): string {
  const parts = Object.entries(input).map(
    ([name, value]) => `${name}: ${typeof value === 'string' ? JSON.stringify(value) : valueText(value)}`,
  );
  return parts.length === 0 ? '(no input)' : truncate(parts.join(', '), length);
}

/** A result's top-level fields as name and short text, at most {@link RESULT_FIELD_LIMIT} of them. */
export function resultFields(result: Record<string, unknown> | null): ResultField[] {
  if (!result) return [];
  const entries = Object.entries(result);
  const fields = entries
    .slice(0, RESULT_FIELD_LIMIT)
    .map(([name, value]) => ({ name, value: truncate(valueText(value), RESULT_VALUE_LENGTH) }));
  if (entries.length > RESULT_FIELD_LIMIT) fields.push({ name: '…', value: `${entries.length - RESULT_FIELD_LIMIT} more fields` });
  return fields;
}

/** A timestamp as the person reads it: in the host's locale and zone, else the browser's. */
export function formatTime(iso: string, format: TimeFormat = {}): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'medium' };
  try {
    return new Intl.DateTimeFormat(format.locale, { ...options, timeZone: format.timeZone }).format(date);
  } catch {
    // A locale or zone this browser does not know: its own defaults still give a readable time.
    return new Intl.DateTimeFormat(undefined, options).format(date);
  }
}

/** The line under the bar: the processor's last word, except once a cancellation has ended the job. */
function progressMessage(job: Job): string {
  if (job.status === 'canceled') return job.started_at ? 'Stopped before it finished' : 'Canceled before it started';
  return job.progress?.message ?? (job.status === 'queued' ? 'Waiting to start' : '');
}

/** `1 credit`, `2 credits`, or `nothing` for 0 (never `free`: the job had a price). */
function creditsOrNothing(credits: number): string {
  return credits === 0 ? 'nothing' : creditsText(credits);
}

/**
 * The line a late cancel earns: the share its operation's `cancelCharge` kept of the percent the job showed,
 * and the rest given back. A job canceled before its attempt started shows no start and got everything back,
 * which the refund row already says.
 */
export function keptText(job: Pick<Job, 'status' | 'cost' | 'refunded_credits' | 'started_at' | 'progress'>): string | null {
  if (job.status !== 'canceled' || job.cost <= 0 || !job.started_at) return null;
  const refunded = Math.min(job.cost, Math.max(0, job.refunded_credits));
  const kept = job.cost - refunded;
  const when = job.progress ? `Canceled at ${job.progress.percent} %` : 'Canceled while running';
  return `${when}: ${creditsOrNothing(kept)} kept, ${refunded === 0 ? 'nothing' : refunded} refunded`;
}

/** What the card shows for `job`. */
export function jobCardView(job: Job, format: TimeFormat = {}): JobCardView {
  const final = isTerminal(job.status);
  const stopping = !final && job.cancel_requested_at !== null;
  const percent = job.status === 'succeeded' ? 100 : (job.progress?.percent ?? (job.status === 'queued' ? 0 : null));
  return {
    id: job.id,
    operation: job.operation,
    status: job.status,
    statusLabel: stopping ? 'Stopping…' : STATUS_LABELS[job.status],
    tone: STATUS_TONES[job.status],
    final,
    percent,
    progressMessage: progressMessage(job),
    costText: creditsText(job.cost),
    refundText: job.refunded_credits > 0 ? `${creditsText(job.refunded_credits)} refunded` : null,
    keptText: keptText(job),
    createdText: formatTime(job.created_at, format),
    finishedText: job.finished_at ? formatTime(job.finished_at, format) : null,
    inputSummary: summariseInput(job.input ?? {}),
    resultFields: job.status === 'succeeded' ? resultFields(job.result) : [],
    partialFields: final ? [] : resultFields(job.partial ?? null),
    errorText: job.status === 'failed' ? (job.error?.message ?? 'The job failed.') : null,
    canCancel: !final && job.cancel_requested_at === null,
  };
}

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
  if (result.isError) return { message: truncate(text ?? 'The call failed.', RESULT_VALUE_LENGTH) };
  if (isJob(result.structuredContent)) return { job: result.structuredContent };
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isJob(parsed) ? { job: parsed } : undefined;
  } catch {
    return undefined;
  }
}
