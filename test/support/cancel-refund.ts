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
 * cost when it was canceled in the queue, all but the cost times its last reported percent (rounded up) when it
 * was stopped while running. A job that started may have been canceled in the queue after (a stall, a retry),
 * so either figure is accepted for it; one that never started must have everything back.
 */
export function expectCancelRefund(polled: CanceledJob | PolledJob, what: string): number {
  // A polled job is the API's answer, whose shape the response checker has held to the published schema.
  const job = polled as CanceledJob;
  const keptWhileRunning = job.started_at === null ? 0 : Math.ceil((job.cost * (job.progress?.percent ?? 0)) / 100);
  expect([job.cost, job.cost - keptWhileRunning], `${what}: refunded_credits`).to.include(job.refunded_credits);
  return job.refunded_credits;
}
