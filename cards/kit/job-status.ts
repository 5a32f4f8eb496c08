import { isTerminal, type Job, type JobStatus } from '../../shared/domain/jobs/job';

/** The colour family a status is shown in (`data-tone` on the kit's `.status`). */
export type StatusTone = 'waiting' | 'working' | 'success' | 'danger' | 'muted';

/** A job's status as every card shows it: in words, in a colour family, and what it allows. */
export interface JobStatusView {
  status: JobStatus;
  label: string;
  tone: StatusTone;
  /** True once the job will not change again: no refresh, no Cancel. */
  final: boolean;
  /** True while Cancel may be offered: not final and not already asked to stop. */
  canCancel: boolean;
}

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

/** How `job`'s status reads: "Stopping…" once a cancel was asked for and the job has not ended yet. */
export function jobStatusView(job: Pick<Job, 'status' | 'cancel_requested_at'>): JobStatusView {
  const final = isTerminal(job.status);
  const stopping = !final && job.cancel_requested_at !== null;
  return {
    status: job.status,
    label: stopping ? 'Stopping…' : STATUS_LABELS[job.status],
    tone: STATUS_TONES[job.status],
    final,
    canCancel: !final && !stopping,
  };
}
