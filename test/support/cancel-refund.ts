import { expect } from 'chai';
import type { PolledJob } from './job-polling';

/** A final job as `GET /v1/jobs/{id}` shows it, as far as its refund goes. */
interface CanceledJob {
  cost: number;
  started_at: string | null;
  progress: { percent: number } | null;
  refunded_credits: number;
}

/**
 * Checks a canceled job's refund against the default `cancelCharge` (`progress`) and returns it: all of its
 * cost when it was canceled in the queue, all but the cost times the percent it shows (rounded up) when it was
 * stopped while running. A job shows the attempt it is on (docs/decisions/job-shows-its-attempt.md): one
 * canceled in the queue after an earlier attempt (a stall, a retry) shows no start, so the figure is exact.
 */
export function expectCancelRefund(polled: CanceledJob | PolledJob, what: string): number {
  // A polled job is the API's answer, whose shape the response checker has held to the published schema.
  const job = polled as CanceledJob;
  const keptWhileRunning = job.started_at === null ? 0 : Math.ceil((job.cost * (job.progress?.percent ?? 0)) / 100);
  expect(job.refunded_credits, `${what}: refunded_credits`).to.equal(job.cost - keptWhileRunning);
  return job.refunded_credits;
}
