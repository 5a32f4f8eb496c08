import { type BullJobProgress, CANCEL_REQUESTED_FIELD, readProgress } from '../shared/adapters/redis/bullmq-job-record';
import type { RedisClient } from '../shared/adapters/redis/redis-client';
import type { JobLifecycle } from '../shared/domain/jobs/job-lifecycle';
import { GENERIC_JOB_FAILURE } from '../shared/domain/jobs/job-runner';
import { chargedJobOf, jobKeyOf, markCanceled } from './bullmq-attempt';
import type { BullJobOf } from './running-job';

/**
 * Ends a job BullMQ has already failed by itself, for stalling too often: only a job a release before 0.7.0 let
 * BullMQ fail so (its deferred failure was recorded then) is failed when next fetched, without our processor;
 * this worker never lets BullMQ do it. Its settlement and event follow the step that ended the job, after
 * the fact: it shows canceled if that was asked.
 */
export async function endStalledOut(job: BullJobOf, client: RedisClient, lifecycle: JobLifecycle): Promise<void> {
  const key = jobKeyOf(job);
  const canceled = (await client.hexists(key, CANCEL_REQUESTED_FIELD)) === 1;
  const progress = readProgress(job.progress);
  const ending = canceled ? ({ kind: 'canceled' } as const) : ({ kind: 'failed', message: GENERIC_JOB_FAILURE } as const);
  const end = { job: chargedJobOf(job), ending, attempt: { id: job.id!, operation: job.name, attempt: job.attemptsStarted } };
  await lifecycle.end(
    { ...end, endedAt: Date.now(), ranMs: Number.NaN, progress: progress.reported ?? null, ran: false },
    {
      writeSettled: async (_end, settled) => {
        const saved: BullJobProgress = {
          ...progress,
          ...(canceled ? { canceled } : {}),
          ...(canceled || settled.released > 0 ? { refunded: settled.released } : {}),
        };
        if (canceled) await markCanceled(client, job, saved);
        else await client.hset(key, 'progress', JSON.stringify(saved));
      },
      // BullMQ has marked it already.
      markEnded: () => undefined,
    },
  );
}
