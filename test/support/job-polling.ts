import { OPERATIONS } from '../../shared/contract/operations/registry';
import type { JobStatus } from '../../shared/domain/jobs/job';
import { isTerminal } from '../../shared/domain/jobs/job';
import { waitFor } from '../testkit/wait-for';
import type { JobClient } from './job-submission';

/** A job as `getJob` answers it (the tests read its status, progress, result and error). */
export type PolledJob = Record<string, any> & { id: string; status: JobStatus };

/** Whether a polled job has reached a final state (succeeded, failed or canceled). */
export function isFinal(job: PolledJob): boolean {
  return isTerminal(job.status);
}

/** A predicate: the job is in one of `statuses`. */
export function inStatus(...statuses: JobStatus[]): (job: PolledJob) => boolean {
  return (job) => statuses.includes(job.status);
}

/** The path a paid operation's jobs are polled at: its `async.pollOperationId`'s path, from the registry. */
export function pollPath(id: string): string {
  const paid = OPERATIONS.find((operation) => operation.job && operation.async);
  const poll = OPERATIONS.find((operation) => operation.operationId === paid?.async?.pollOperationId);
  if (!poll) throw new Error('the registry has no poll operation for its paid jobs');
  return poll.path.replace('{id}', encodeURIComponent(id));
}

/** Reads a job once as its owner; the checked response's body (a problem for a missing job). */
export async function readJob(client: JobClient, token: string, id: string): Promise<PolledJob> {
  return (await client.call('GET', pollPath(id), { token })).body;
}

/**
 * Polls a job as its owner until `until` accepts it (default: a final state) and answers that answer's body.
 * Waits on the condition with `waitFor` (no fixed sleep); a wait past `timeoutMs` (`wait`, or its member)
 * fails naming the job.
 */
export async function pollJob(
  client: JobClient,
  token: string,
  id: string,
  until: (job: PolledJob) => boolean = isFinal,
  wait: number | { timeoutMs?: number; intervalMs?: number } = {},
): Promise<PolledJob> {
  const { timeoutMs = 15_000, intervalMs } = typeof wait === 'number' ? { timeoutMs: wait } : wait;
  return waitFor(
    async () => {
      const res = await client.call('GET', pollPath(id), { token });
      return res.status === 200 && until(res.body) ? (res.body as PolledJob) : undefined;
    },
    { timeoutMs, intervalMs, what: `job ${id}` },
  );
}
