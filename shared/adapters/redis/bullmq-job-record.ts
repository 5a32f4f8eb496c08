import type { Job as BullJob, JobState } from 'bullmq';
import { isTerminal, type JobRecord, type JobStatus, type NewJob } from '../../domain/jobs/job';
import { GENERIC_JOB_FAILURE } from '../../domain/jobs/job-runner';
import { splitReport } from '../../domain/jobs/partial-result';
import type { AttemptReport } from '../../domain/jobs/progress-reporter';

/** What a BullMQ job carries as its data; the job's name is the operation id. */
export interface BullJobData {
  subject: string;
  input: Record<string, unknown>;
  cost: number;
  created_at: string;
}

/**
 * What the worker keeps in the job's `progress` field. BullMQ overwrites `processedOn` on every attempt (the
 * start a job shows) and stores library messages (e.g. about stalls) in `failedReason`; the first start (for
 * the run-time metric) and the last *safe* error message are therefore kept here, written only by our worker,
 * beside the processor's last progress report (the attempt's own: dropped when the job starts over).
 */
export interface BullJobProgress {
  started_at?: string;
  error?: string;
  reported?: AttemptReport;
  /** Set by the worker when it ended the job as canceled (BullMQ holds it as failed). */
  canceled?: boolean;
  /** Credits the worker gave back when it ended the job. */
  refunded?: number;
}

/** The data stored for a new job. */
export function toBullJobData(job: NewJob): BullJobData {
  return { subject: job.subject, input: job.input, cost: job.cost, created_at: job.createdAt };
}

/** Reads our progress object, whatever BullMQ hands back (a number before the first write, maybe a JSON string). */
export function readProgress(progress: unknown): BullJobProgress {
  let value = progress;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const { started_at, error, reported, canceled, refunded } = value as Record<string, unknown>;
  return {
    ...(typeof started_at === 'string' ? { started_at } : {}),
    ...(typeof error === 'string' ? { error } : {}),
    ...(isJobProgress(reported) ? { reported } : {}),
    ...(canceled === true ? { canceled } : {}),
    ...(typeof refunded === 'number' ? { refunded } : {}),
  };
}

function isJobProgress(value: unknown): value is AttemptReport {
  if (!value || typeof value !== 'object') return false;
  const { percent, message, updated_at, partial } = value as Record<string, unknown>;
  const partialOk = partial === undefined || (typeof partial === 'object' && partial !== null && !Array.isArray(partial));
  return Number.isInteger(percent) && (message === null || typeof message === 'string') && typeof updated_at === 'string' && partialOk;
}

/** Our four states from BullMQ's many: anything waiting, delayed (a retry's backoff) or prioritized is queued. */
export function toJobStatus(state: JobState | 'unknown'): JobStatus | undefined {
  switch (state) {
    case 'completed':
      return 'succeeded';
    case 'failed':
      return 'failed';
    case 'active':
      return 'running';
    case 'unknown':
      return undefined;
    default:
      return 'queued';
  }
}

/** The parts of a stored BullMQ job a record is made from: a `Job`, or a job hash read raw. */
export type StoredBullJob = Pick<
  BullJob<BullJobData>,
  'id' | 'name' | 'data' | 'progress' | 'timestamp' | 'processedOn' | 'finishedOn' | 'returnvalue' | 'attemptsStarted' | 'attemptsMade'
>;

/** Our field in a BullMQ job hash: when a cancel was asked (milliseconds). */
export const CANCEL_REQUESTED_FIELD = 'cxr';
/**
 * Our field in a BullMQ job hash: set by the worker when it decided the job fails, before it refunds it, so
 * that a worker taking the job again after a crash ends it failed instead of running it.
 */
export const FAILED_FIELD = 'cxf';
/** Our field in a BullMQ job hash: set when the job ended canceled (by the cancel script, or by the worker). */
export const CANCELED_FIELD = 'cxd';
/**
 * Our key beside a BullMQ queue's own (`queue.toKey(CANCELED_SET)`): a sorted set of its canceled jobs by the
 * time they ended, which the queue gauge counts (BullMQ keeps them in its failed set).
 */
export const CANCELED_SET = 'canceled';

/**
 * The fields of a stored BullMQ job hash a record is made of, in the order {@link fromStoredFields} reads
 * them: the names and encodings BullMQ stores (the same its own reader uses: JSON for data, progress and the
 * return value; `ats` for attempts started, `attemptsMade` or the newer `atm` for attempts made).
 */
export const STORED_JOB_FIELDS = [
  'name',
  'data',
  'progress',
  'timestamp',
  'processedOn',
  'finishedOn',
  'returnvalue',
  'ats',
  'attemptsMade',
  'atm',
  CANCEL_REQUESTED_FIELD,
  CANCELED_FIELD,
] as const;

/** A field's position in the read-job script's reply (Lua counts from 1). */
const luaIndex = (field: (typeof STORED_JOB_FIELDS)[number]): number => STORED_JOB_FIELDS.indexOf(field) + 1;

/** The constants of the scripts that read a job (`includes/read-job.lua`). */
export const READ_JOB_CONSTANTS = {
  STORED_JOB_FIELDS,
  NAME_AT: luaIndex('name'),
  DATA_AT: luaIndex('data'),
  TIMESTAMP_AT: luaIndex('timestamp'),
};

/** What `includes/read-job.lua` answers. */
export type ReadJobReply = ['unknown'] | ['completed' | 'failed' | 'active' | 'waiting', Array<string | null>];

/** The record of a job from what `includes/read-job.lua` answered for it; undefined for an unknown job. */
export function recordOfReadJob(id: string, reply: ReadJobReply): JobRecord | undefined {
  return reply[0] === 'unknown' ? undefined : toJobRecord(fromStoredFields(id, reply[1]), reply[0]);
}

/**
 * Reads a job from the values of {@link STORED_JOB_FIELDS} as HMGET returns them (null for a missing field).
 * The job-queue tests read every state both ways: through this and through BullMQ's own `Job`.
 */
export function fromStoredFields(id: string, values: ReadonlyArray<string | null | undefined>): StoredBullJob & CancelFields {
  const [name, data, progress, timestamp, processedOn, finishedOn, returnvalue, ats, attemptsMade, atm, cxr, cxd] = values;
  const int = (value: string | null | undefined) => (value ? Number.parseInt(value, 10) : undefined);
  return {
    id,
    name: name ?? '',
    data: JSON.parse(data || '{}') as BullJobData,
    progress: JSON.parse(progress || '0') as BullJob['progress'],
    timestamp: int(timestamp) ?? 0,
    processedOn: int(processedOn),
    finishedOn: int(finishedOn),
    returnvalue: parseReturnValue(returnvalue ?? undefined),
    attemptsStarted: int(ats) ?? 0,
    attemptsMade: int(attemptsMade ?? atm) ?? 0,
    cancelRequestedOn: int(cxr),
    canceledOn: int(cxd),
  };
}

/** Our cancellation fields, read with the job. */
export interface CancelFields {
  cancelRequestedOn?: number;
  canceledOn?: number;
}

function parseReturnValue(stored: string | undefined): unknown {
  if (stored === undefined) return undefined;
  try {
    return JSON.parse(stored);
  } catch {
    return stored;
  }
}

/** Maps a stored BullMQ job and its state to our record; undefined when the job is gone. */
export function toJobRecord(job: (StoredBullJob & CancelFields) | undefined, state: JobState | 'unknown'): JobRecord | undefined {
  const found = toJobStatus(state);
  if (!job?.id || !found) return undefined;
  const progress = readProgress(job.progress);
  const status = shownStatus(found, job, progress);
  const onAttempt = attemptUnderWay(status, job, progress);
  const shown = splitReport(onAttempt ? progress.reported : undefined);
  return {
    id: job.id,
    subject: job.data.subject,
    operation: job.name,
    status,
    input: job.data.input,
    cost: job.data.cost,
    created_at: job.data.created_at ?? new Date(job.timestamp).toISOString(),
    started_at: onAttempt ? isoOrNull(job.processedOn) : null,
    ...outcomeOf(status, job, progress),
    attempts: Math.max(job.attemptsStarted ?? 0, job.attemptsMade ?? 0),
    progress: shown.progress,
    // Shown while the job runs only: the result (or the error) replaces it.
    partial: status === 'running' ? shown.partial : null,
    cancel_requested_at: job.cancelRequestedOn === undefined ? null : new Date(job.cancelRequestedOn).toISOString(),
    // A job canceled while it ran shows what its worker gave back (written before it marked the job: all but what
    // its cancelCharge kept); one canceled in the queue is refunded in full by the API right after its cancel
    // script (a crash between the two is repaired by the next read of the job).
    refunded_credits: progress.refunded ?? (job.canceledOn !== undefined ? job.data.cost : 0),
  };
}

/**
 * Whether the job is on an attempt that started: a queued job (waiting for a retry, or handed back after a
 * crash) or one canceled in the queue is not, whatever an earlier attempt did. Its next attempt starts over and
 * a cancel there gives everything back, so it shows no start and no progress
 * (docs/decisions/job-shows-its-attempt.md). BullMQ stamps `processedOn` on every attempt.
 */
function attemptUnderWay(status: JobStatus, job: CancelFields, progress: BullJobProgress): boolean {
  if (status === 'queued') return false;
  return !(status === 'canceled' && job.canceledOn !== undefined && !progress.canceled);
}

/** BullMQ has no canceled state: a canceled job sits in its failed set, marked by the cancel script or the worker. */
function shownStatus(status: JobStatus, job: CancelFields, progress: BullJobProgress): JobStatus {
  return status === 'failed' && (job.canceledOn !== undefined || progress.canceled) ? 'canceled' : status;
}

/** When a job finished, with what result or error: nulls until it has. */
function outcomeOf(status: JobStatus, job: StoredBullJob, progress: BullJobProgress): Pick<JobRecord, 'finished_at' | 'result' | 'error'> {
  return {
    finished_at: isTerminal(status) ? new Date(job.finishedOn ?? Date.now()).toISOString() : null,
    result: status === 'succeeded' ? ((job.returnvalue as Record<string, unknown> | null) ?? {}) : null,
    // Only our worker's safe message is shown; a failure BullMQ decided on its own (e.g. a job that stalled
    // too often) carries a library message, which is replaced by the generic one.
    error: status === 'failed' ? { message: progress.error ?? GENERIC_JOB_FAILURE } : null,
  };
}

/** An instant BullMQ keeps in milliseconds as an ISO time; null when it has none (0 or absent). */
function isoOrNull(ms: number | undefined): string | null {
  return ms ? new Date(ms).toISOString() : null;
}
