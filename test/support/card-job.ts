import type { Job } from '../../shared/domain/jobs/job';

/** A running job as the cards receive it (a word count at 40 %), with `overrides` on top: the card tests' fixture. */
export function cardJob(overrides: Partial<Job> = {}): Job {
  return {
    id: 'job_abc',
    operation: 'countWords',
    status: 'running',
    input: { text: 'hello world' },
    cost: 3,
    created_at: '2026-11-25T10:00:00.000Z',
    started_at: '2026-11-25T10:00:01.000Z',
    finished_at: null,
    result: null,
    error: null,
    attempts: 1,
    progress: { percent: 40, message: 'Counting', updated_at: '2026-11-25T10:00:02.000Z' },
    partial: null,
    cancel_requested_at: null,
    refunded_credits: 0,
    ...overrides,
  };
}
