import { randomBytes } from 'node:crypto';
import type { NewJob } from '../../shared/domain/jobs/job';

/** A job as the API hands it to a queue (fresh id, now as its creation time), with `overrides` over the defaults. */
export function newJob(overrides: Partial<NewJob> = {}): NewJob {
  return {
    id: `job_${randomBytes(24).toString('base64url').slice(0, 32)}`,
    subject: 'alice@example.com',
    operation: 'createJob',
    input: { prompt: 'hello' },
    cost: 1,
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}
