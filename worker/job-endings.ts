import { UnrecoverableError, type Job as BullJob } from 'bullmq';
import {
  CANCEL_REQUESTED_FIELD,
  CANCELED_FIELD,
  CANCELED_SET,
  FAILED_FIELD,
  readProgress,
  type BullJobData,
  type BullJobProgress,
} from '../shared/adapters/redis/bullmq-job-record';
import type { RedisClient } from '../shared/adapters/redis/redis-client';
import type { JobObserver, ObservedAttempt } from '../shared/domain/jobs/job-observer';
import { refundOf } from '../shared/domain/jobs/job-settlement';
import type { LedgerStore } from '../shared/domain/ledger/ledger-store';

type BullJobOf = BullJob<BullJobData, Record<string, unknown>, string>;

/**
 * Thrown by an ending whose writes (the decision, the refund, the canceled mark) did not all reach Redis: the
 * job must not be marked finished by BullMQ, but taken again to end it (`cause`: what failed).
 */
export class UnfinishedEnding extends Error {
  constructor(cause: unknown) {
    super('the job ending could not be recorded', { cause });
    this.name = 'UnfinishedEnding';
  }
}

/** Runs an ending's writes; any failure among them becomes an {@link UnfinishedEnding}. */
async function recorded<T>(writes: () => Promise<T>): Promise<T> {
  try {
    return await writes();
  } catch (error) {
    throw new UnfinishedEnding(error);
  }
}

/** What was decided about a job before it was taken again: nothing, or how it must end without running. */
export type EarlierDecision = 'failed' | 'canceled' | undefined;

/**
 * How the worker ends a job that did not succeed, with its refund. Every ending writes what it decided, then
 * refunds (the ledger's once-per-job refund), then lets BullMQ mark the job: a worker dying in between
 * leaves the job to be taken again, which finds the decision ({@link JobEndings.decided}) and ends the job
 * the same way without running it, so a refunded job never runs again and never succeeds.
 */
export interface JobEndings {
  /** The decision recorded on a job taken again (a retry, a stall, a hand-back); one read. */
  decided(job: BullJobOf): Promise<EarlierDecision>;
  /** Ends the job `canceled` and refunded; throws the error that makes BullMQ fail it without retry. */
  canceled(job: BullJobOf, progress: BullJobProgress, observed: ObservedAttempt, ranMs: number): Promise<never>;
  /**
   * Ends the job `failed`, refunded unless its operation keeps failed charges; throws like `canceled`.
   * `progress` is what the job's progress field holds (its start and last report, flushed): it is kept.
   */
  failed(job: BullJobOf, progress: BullJobProgress, message: string, observed: ObservedAttempt, ranMs: number): Promise<never>;
  /** A job BullMQ failed by itself (it stalled too often): refunded, and shown canceled if that was asked. */
  stalledOut(job: BullJobOf): Promise<void>;
}

/** The endings on one Redis client and ledger. */
export function createJobEndings(deps: {
  client: RedisClient;
  ledger: LedgerStore;
  observer: JobObserver;
  retentionSeconds: number;
  refundOnFailure: (operation: string) => boolean;
  recordEvent: (job: BullJobOf, outcome: 'failed' | 'canceled') => Promise<void>;
}): JobEndings {
  const { client, ledger, observer, recordEvent } = deps;
  const keyOf = (job: BullJobOf) => `${job.queueQualifiedName}:${job.id}`;
  // The job's credits, given back once: `credits` is what the job shows refunded, `made` whether this call
  // made the refund (an ending run again after an interruption finds it made, and must not count it again).
  const refund = async (job: BullJobOf): Promise<{ credits: number; made: boolean }> => {
    if (job.data.cost <= 0) return { credits: 0, made: false };
    const made = await ledger.refund(refundOf({ ...job.data, id: job.id!, operation: job.name }, deps.retentionSeconds));
    return { credits: job.data.cost, made };
  };
  const write = (job: BullJobOf, progress: BullJobProgress, field: string) =>
    client.hset(keyOf(job), 'progress', JSON.stringify(progress), field, Date.now());
  // Counted by the queue gauge; added before BullMQ's mark, like every other write of an ending.
  const countCanceled = (job: BullJobOf) => client.zadd(`${job.queueQualifiedName}:${CANCELED_SET}`, Date.now(), job.id!);

  return {
    async decided(job) {
      const [cancelAsked, failedAt] = await client.hmget(keyOf(job), CANCEL_REQUESTED_FIELD, FAILED_FIELD);
      return failedAt ? 'failed' : cancelAsked ? 'canceled' : undefined;
    },
    async canceled(job, progress, observed, ranMs) {
      // The cancel request is the decision: it is already on the job, so the refund comes first here.
      const { credits: refunded, made } = await recorded(async () => {
        const given = await refund(job);
        await write(job, { ...progress, canceled: true, refunded: given.credits }, CANCELED_FIELD);
        await countCanceled(job);
        return given;
      });
      // Counted where it was made: an ending run again finds it made and counts nothing.
      if (made) observer.refunded(observed, 'canceled', refunded);
      await recordEvent(job, 'canceled');
      observer.finished(observed, 'canceled', ranMs);
      throw new UnrecoverableError('canceled');
    },
    async failed(job, progress, message, observed, ranMs) {
      // The safe message is kept beside the job: BullMQ's failedReason may also hold its own messages. The
      // last progress report stays: the field is replaced whole.
      const ending: BullJobProgress = { ...progress, error: message };
      const { credits: refunded, made } = await recorded(async () => {
        await write(job, ending, FAILED_FIELD);
        const given = deps.refundOnFailure(job.name) ? await refund(job) : { credits: 0, made: false };
        if (given.credits > 0) await write(job, { ...ending, refunded: given.credits }, FAILED_FIELD);
        return given;
      });
      if (made) observer.refunded(observed, 'failed', refunded);
      await recordEvent(job, 'failed');
      observer.finished(observed, 'failed', ranMs, message);
      // Unrecoverable: BullMQ must not retry a job we have decided is finished (non-retryable or out of attempts).
      throw new UnrecoverableError(message);
    },
    async stalledOut(job) {
      // Already failed by BullMQ (only for a job an older release let BullMQ fail for stalling; this one never
      // does): the refund follows the step that ended the job.
      const progress = readProgress(job.progress);
      const canceled = (await client.hexists(keyOf(job), CANCEL_REQUESTED_FIELD)) === 1;
      const refunded = canceled || deps.refundOnFailure(job.name) ? (await refund(job)).credits : 0;
      const saved: BullJobProgress = { ...progress, ...(canceled ? { canceled } : {}), ...(refunded > 0 ? { refunded } : {}) };
      await client.hset(keyOf(job), 'progress', JSON.stringify(saved), ...(canceled ? [CANCELED_FIELD, Date.now()] : []));
      if (canceled) await countCanceled(job);
      await recordEvent(job, canceled ? 'canceled' : 'failed');
    },
  };
}
