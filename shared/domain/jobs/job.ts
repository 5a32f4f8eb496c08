import type { JobProgress, PartialResult } from './progress-reporter';

/** The states of a job: `queued → running → succeeded | failed | canceled` (a queued job may go to `canceled` directly). */
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';

/** Seconds a client should wait between polls of a job that is not final (the `Retry-After` it is sent). */
export const JOB_POLL_SECONDS = 2;

export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'succeeded', 'failed', 'canceled'];

/** A job as the API shows it to its owner. */
export interface Job {
  id: string;
  operation: string;
  status: JobStatus;
  input: Record<string, unknown>;
  cost: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  result: Record<string, unknown> | null;
  error: { message: string } | null;
  attempts: number;
  /** The processor's last progress report, or null before the first. */
  progress: JobProgress | null;
  /**
   * What the processor has produced so far, as it last published it (`PaidJob.partial`): set only while the
   * job runs; null before the first, on a new attempt, and once the job has ended (the result replaces it).
   */
  partial: PartialResult | null;
  /** When the owner asked to cancel the job; null unless asked. */
  cancel_requested_at: string | null;
  /** Credits given back (a canceled job, or a failed one whose operation refunds failures); 0 otherwise. */
  refunded_credits: number;
}

/** A job as stored: the public view plus its owner, which scopes every read. */
export interface JobRecord extends Job {
  subject: string;
}

/** What the API hands to the queue when a job is accepted. */
export interface NewJob {
  id: string;
  subject: string;
  operation: string;
  input: Record<string, unknown>;
  cost: number;
  createdAt: string;
}

/** True once a job will not change again. */
export function isTerminal(status: JobStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'canceled';
}

/** The owner-facing view of a stored job (drops the subject). */
export function toPublicJob({ subject: _subject, ...job }: JobRecord): Job {
  return job;
}

/** A fresh record in the `queued` state. */
export function queuedRecord(job: NewJob): JobRecord {
  return {
    id: job.id,
    subject: job.subject,
    operation: job.operation,
    status: 'queued',
    input: job.input,
    cost: job.cost,
    created_at: job.createdAt,
    started_at: null,
    finished_at: null,
    result: null,
    error: null,
    attempts: 0,
    progress: null,
    partial: null,
    cancel_requested_at: null,
    refunded_credits: 0,
  };
}
