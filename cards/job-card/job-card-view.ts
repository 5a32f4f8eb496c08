import type { Job, JobStatus } from '../../shared/domain/jobs/job';
import { creditsText, formatTime, type TimeFormat, truncate } from '../kit/card-text';
import { jobStatusView, type StatusTone } from '../kit/job-status';

/** One field of a job's result, as the card lists it. */
export interface ResultField {
  name: string;
  value: string;
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
  const { label, tone, final, canCancel } = jobStatusView(job);
  const percent = job.status === 'succeeded' ? 100 : (job.progress?.percent ?? (job.status === 'queued' ? 0 : null));
  return {
    id: job.id,
    operation: job.operation,
    status: job.status,
    statusLabel: label,
    tone,
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
    canCancel,
  };
}
