import type { PaidJob } from '../../domain/jobs/processor';
import type { Operation } from './operation';
import { OPERATIONS } from './registry';

/**
 * The paid jobs of a registry, in its order: each paid operation names its job (`Operation.job`), so listing
 * the operation is what registers the job, and a list derived here cannot miss one. The worker, the API's
 * embedded worker and every process entry take their jobs from this. Refuses a job that names another
 * operation, and two operations with one job id.
 */
export function paidJobsOf(operations: readonly Operation[]): PaidJob[] {
  const jobs = new Map<string, PaidJob>();
  for (const { operationId, job } of operations) {
    if (!job) continue;
    if (job.operationId !== operationId) throw new Error(`${operationId}: its job is declared for ${job.operationId}`);
    if (jobs.has(operationId)) throw new Error(`two operations run the job ${operationId}`);
    jobs.set(operationId, job);
  }
  return [...jobs.values()];
}

/** Every paid job of the shipped registry: what `npm run start:worker` runs. */
export const PAID_JOBS: readonly PaidJob[] = paidJobsOf(OPERATIONS);
