import type { ServerContext } from '@modelcontextprotocol/server';
import { isTerminal, type Job } from '../../shared/domain/jobs/job';

/** Where a progress notification carries the job's partial result (`Job.partial`): a key of its `_meta`. */
export const PARTIAL_META_KEY = 'connector/partial';

/** Tells the client waiting on a task how its job stands; resolves once sent (or dropped). */
export type TaskProgressNotifier = (job: Job) => Promise<void>;

/**
 * Progress notifications for a task request that asked for them (`_meta.progressToken`): `tasks/get` on both
 * revisions and the waiting `tasks/result` of 2025-11-25. Each change of the job's progress or partial result
 * while it runs is one `notifications/progress` (the percent of 100, the progress message, and the partial
 * result in `_meta["connector/partial"]`), sent on the request's own stream before its answer; an unchanged
 * job sends nothing, and a job that has ended sends nothing (its result is the answer). The value always
 * increases, as the specification requires, even when only the partial changed. A request without a token
 * gets none (undefined).
 */
export function taskProgressNotifier(ctx: Pick<ServerContext, 'mcpReq'>): TaskProgressNotifier | undefined {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  let lastSeen: string | undefined;
  let lastValue: number | undefined;
  return async (job) => {
    if (isTerminal(job.status) || (!job.progress && !job.partial)) return;
    const seen = JSON.stringify([job.progress, job.partial]);
    if (seen === lastSeen) return;
    lastSeen = seen;
    const percent = job.progress?.percent ?? 0;
    lastValue = lastValue === undefined || percent > lastValue ? percent : lastValue + 0.001;
    const params = {
      progressToken: token,
      progress: lastValue,
      total: 100,
      message: job.progress?.message ?? `${percent} %`,
      ...(job.partial ? { _meta: { [PARTIAL_META_KEY]: job.partial } } : {}),
    };
    // Advisory: a client gone from the stream loses its notification, not its answer.
    await ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => undefined);
  };
}
