import { DelayedError, UnrecoverableError, WaitingError } from 'bullmq';
import type { Logger } from 'pino';
import {
  type BullJobProgress,
  CANCEL_REQUESTED_FIELD,
  CANCELED_FIELD,
  CANCELED_SET,
  FAILED_FIELD,
  readProgress,
} from '../shared/adapters/redis/bullmq-job-record';
import type { JobProgressStore } from '../shared/adapters/redis/job-progress-store';
import type { RedisClient } from '../shared/adapters/redis/redis-client';
import type { AttemptPorts, EarlierDecision, JobEnd, JobLifecycle, TakenJob } from '../shared/domain/jobs/job-lifecycle';
import type { AttemptOutcome } from '../shared/domain/jobs/job-runner';
import type { Settled } from '../shared/domain/jobs/job-settlement';
import { splitReport } from '../shared/domain/jobs/partial-result';
import type { AttemptReport, JobProgress } from '../shared/domain/jobs/progress-reporter';
import { UnfinishedEnding } from '../shared/domain/jobs/unfinished-ending';
import type { Step } from '../shared/platform/util/step';
import { inAttemptSpan } from './attempt-span';
import type { CancelWatch } from './cancel-watch';
import type { BullJobOf, RunningJob } from './running-job';

/** How long a job whose ending could not be completed (Redis failing) waits before it is taken again to finish it. */
const UNFINISHED_ENDING_RETRY_MS = 1000;

/** What the worker's attempts share. */
export interface BullmqAttemptDeps {
  client: RedisClient;
  cancels: CancelWatch;
  writeProgress: JobProgressStore;
  logger: Logger;
}

/** What the BullMQ processor needs besides. */
export interface JobProcessorDeps extends BullmqAttemptDeps {
  lifecycle: JobLifecycle;
  /** The jobs this worker holds the lock of, so that a shutdown can hand them back. */
  running: Map<string, RunningJob>;
}

/**
 * The BullMQ processor of the paid-jobs queues: each job's attempt is handed to the job lifecycle with the
 * worker's ports ({@link BullmqAttempt}); what the lifecycle returns or throws is BullMQ's to mark. An ending
 * that could not be completed is put off instead (see {@link putOff}).
 */
export function createJobProcessor(deps: JobProcessorDeps): (job: BullJobOf, token?: string) => Promise<Record<string, unknown>> {
  return async (job, token) => {
    const entry: RunningJob | undefined = token ? { job, token } : undefined;
    if (entry) deps.running.set(job.id!, entry);
    const attempt = new BullmqAttempt(job, deps, entry);
    // A cancel asked through any API while this worker holds the job fires the attempt's controller.
    const stopWatching = deps.cancels.abortOnCancel(attempt.key, attempt.taken.controller);
    try {
      const taken = attempt.take();
      return await deps.lifecycle.attempt(taken instanceof Promise ? await taken : taken, attempt);
    } catch (error) {
      if (!(error instanceof UnfinishedEnding)) throw error;
      return await putOff(job, token, error, deps.logger);
    } finally {
      stopWatching();
      deps.running.delete(job.id!);
    }
  };
}

/**
 * The ending's decision or settlement did not reach Redis: BullMQ must neither fail the job (it would end
 * without its refund) nor retry it as a failed attempt. It is put off instead, and taken again to end it the
 * same way (the decision, when written, is found; the settlement is once per job). Should even that move
 * fail, the job's lock lapses and the stalled check hands it back.
 */
async function putOff(job: BullJobOf, token: string | undefined, error: UnfinishedEnding, logger: Logger): Promise<never> {
  logger.warn({ err: error.cause, job_id: job.id, operation: job.name }, 'could not finish ending the job; it will be taken again');
  if (token) await job.moveToDelayed(Date.now() + UNFINISHED_ENDING_RETRY_MS, token).catch(() => undefined);
  throw new DelayedError();
}

/**
 * One BullMQ job taken for an attempt, as the job lifecycle sees it: what was taken, and the worker's ports.
 * It keeps what the job's progress field holds, so that each write (a report, the start, the error, the
 * ending) carries the others: BullMQ replaces the whole field. BullMQ marks the job from what `markEnded`
 * and `retry` give it: a result, an `UnrecoverableError` (ended: never retried), or an error (retried).
 */
export class BullmqAttempt implements AttemptPorts<Record<string, unknown>> {
  readonly taken: TakenJob;
  private stored: BullJobProgress;
  private readonly savedStart: string | undefined;
  /** The key of the job's BullMQ hash ({@link jobKeyOf}). */
  readonly key: string;

  constructor(
    private readonly job: BullJobOf,
    private readonly deps: BullmqAttemptDeps,
    /** The entry a shutdown may hand back while the attempt runs. */
    private readonly entry?: RunningJob,
  ) {
    const attempt = job.attemptsMade + 1;
    const progress = readProgress(job.progress);
    const attemptsStarted = Math.max(job.attemptsStarted, attempt);
    // The first start across retries, in BullMQ's milliseconds: a succeeding job formats and parses no date.
    const startedMs = progress.started_at === undefined ? (job.processedOn ?? Date.now()) : Date.parse(progress.started_at);
    this.stored = progress;
    this.savedStart = progress.started_at;
    this.key = jobKeyOf(job);
    this.taken = {
      job: chargedJobOf(job),
      attempt,
      attemptsStarted,
      maxAttempts: job.opts.attempts ?? 1,
      startedMs,
      waitedMs: attemptsStarted === 1 ? startedMs - Date.parse(job.data.created_at) : undefined,
      stalls: job.stalledCounter,
      lastError: progress.error,
      lastReport: progress.reported ?? null,
      controller: new AbortController(),
    };
  }

  /**
   * A first attempt's start is BullMQ's processedOn, which readers fall back to, so nothing is written for it
   * (a write per job cost a sixth of the worker's Redis commands; bench/README.md). A failed attempt saves the
   * start with its error; only a restart after a crash (a stall) finds none and keeps its own.
   */
  async saveStart(): Promise<void> {
    if (!this.savedStart && this.taken.attemptsStarted > 1) await this.store({ started_at: this.startedAt() });
  }

  /**
   * The job as the lifecycle takes it: its start saved where needed and, taken again, the decision found. Taken
   * again with no decision, it starts over, so a dead attempt's report is dropped: the view and a cancel's share
   * read this attempt's reports only (docs/decisions/job-shows-its-attempt.md). A first attempt is taken at
   * once, with no turn of its own: it has nothing to read.
   */
  take(): Step<TakenJob> {
    return this.taken.attemptsStarted === 1 ? this.taken : this.takeAgain();
  }

  private async takeAgain(): Promise<TakenJob> {
    const earlier = await this.readDecision();
    if (earlier === undefined && this.stored.reported !== undefined) {
      const { reported: _dropped, ...rest } = this.stored;
      this.stored = rest;
      await this.store({ started_at: this.startedAt() });
      return { ...this.taken, lastReport: null, earlier };
    }
    await this.saveStart();
    return { ...this.taken, earlier };
  }

  /** A failure's decision is `cxf`; a cancel's is its request, `cxr`. One read. */
  async readDecision(): Promise<EarlierDecision> {
    const [cancelAsked, failedAt] = await this.deps.client.hmget(this.key, CANCEL_REQUESTED_FIELD, FAILED_FIELD);
    return failedAt ? 'failed' : cancelAsked ? 'canceled' : undefined;
  }

  cancelAsked(): Promise<boolean> {
    return this.deps.cancels.requested(this.key).catch(() => false);
  }

  /**
   * A processor's reports take the cheaper path (one field, no event): they are the frequent writes. They are
   * sent without waiting for the reply: every write about this job (reports, the error, BullMQ's own
   * completion) goes over this one connection, which Redis applies in the order sent, so the job does not
   * wait a round trip for its last report and the order still holds.
   */
  async saveProgress(report: AttemptReport): Promise<void> {
    this.stored = { ...this.stored, reported: report };
    this.deps
      .writeProgress(this.key, this.stored)
      .catch((error: unknown) => this.deps.logger.debug({ err: error, job_id: this.job.id }, 'progress not saved'));
  }

  /**
   * The attempt runs in its span. Handed back while it ran, the job is the queue's again and another worker
   * may already be running it, so this attempt's outcome is dropped (recording it would finish the job
   * twice): WaitingError tells BullMQ the job has left `active` by our hand and that it must neither
   * complete nor fail it.
   */
  async frame(attempt: (onReport: (report: JobProgress) => void) => Promise<AttemptOutcome>): Promise<AttemptOutcome> {
    const { id, operation } = this.taken.job;
    const outcome = await inAttemptSpan({ id, operation, attempt: this.taken.attempt }, (progressEvent) =>
      attempt((report) => progressEvent(report.percent)),
    );
    if (this.entry?.handedBack && (await this.entry.handedBack)) {
      this.deps.logger.info(
        { job_id: id, operation, attempt: this.taken.attempt },
        'attempt ended after its job was handed back; outcome dropped',
      );
      throw new WaitingError();
    }
    return outcome;
  }

  /** The safe message is kept beside the job (BullMQ's failedReason may also hold its own messages); BullMQ retries on the error. */
  async retry(message: string): Promise<never> {
    // The next attempt starts over: this one's report is not its progress.
    const { reported: _dropped, ...rest } = this.stored;
    this.stored = rest;
    await this.store({ started_at: this.startedAt(), error: message });
    throw new Error(message);
  }

  /**
   * A failure's decision is written here, before its refund: `cxf` and the safe message (kept beside the job:
   * BullMQ's failedReason may also hold its own messages). A cancel's decision is its request, already there.
   */
  async writeDecision(end: JobEnd): Promise<void> {
    if (end.ending.kind === 'failed') await this.writeFailed({ ...this.ending(), error: end.ending.message });
  }

  async writeSettled(end: JobEnd, settled: Settled): Promise<void> {
    if (end.ending.kind === 'canceled')
      await markCanceled(this.deps.client, this.job, { ...this.ending(), canceled: true, refunded: settled.released });
    else if (end.ending.kind === 'failed' && settled.released > 0) {
      await this.writeFailed({ ...this.ending(), error: end.ending.message, refunded: settled.released });
    }
  }

  /** Unrecoverable: BullMQ must not retry a job the lifecycle has ended (non-retryable, out of attempts, or canceled). */
  markEnded(end: JobEnd): Record<string, unknown> {
    if (end.ending.kind === 'succeeded') return end.ending.result;
    throw new UnrecoverableError(end.ending.kind === 'failed' ? end.ending.message : 'canceled');
  }

  /**
   * The progress an ending keeps: the last report (flushed by now) without its partial result, which the
   * result replaces (an ended job shows none, so the ended hash need not keep its 16 KiB), and the first start.
   */
  private ending(): BullJobProgress {
    const { reported, ...rest } = this.stored;
    const kept = reported && splitReport(reported).progress;
    return { ...rest, ...(kept ? { reported: kept } : {}), started_at: this.startedAt() };
  }

  /** A saved start is kept as written; only a start that was never saved is formatted. */
  private startedAt(): string {
    return this.savedStart ?? new Date(this.taken.startedMs).toISOString();
  }

  /** The progress field (the last report kept: the field is replaced whole) and `cxf`. */
  private async writeFailed(progress: BullJobProgress): Promise<void> {
    await this.deps.client.hset(this.key, 'progress', JSON.stringify(progress), FAILED_FIELD, Date.now());
  }

  private async store(update: BullJobProgress): Promise<void> {
    this.stored = { ...this.stored, ...update };
    // Best effort: losing one only loses a start time or falls back to the generic message.
    await this.job.updateProgress(this.stored as Record<string, unknown>).catch(() => undefined);
  }
}

/** The key of the job's BullMQ hash, where our fields sit beside BullMQ's. */
export function jobKeyOf(job: BullJobOf): string {
  return `${job.queueQualifiedName}:${job.id}`;
}

/** The job as the lifecycle settles it: its owner, its charge and when it was made, and its input. */
export function chargedJobOf(job: BullJobOf): TakenJob['job'] {
  return {
    id: job.id!,
    subject: job.data.subject,
    operation: job.name,
    cost: job.data.cost,
    created_at: job.data.created_at,
    input: job.data.input,
  };
}

/**
 * Shows the job ended canceled (its progress field, `cxd`) and counts it in the queue's canceled set, which
 * the queue gauge reads: before BullMQ's mark, like every other write of an ending.
 */
export async function markCanceled(client: RedisClient, job: BullJobOf, progress: BullJobProgress): Promise<void> {
  await client.hset(jobKeyOf(job), 'progress', JSON.stringify(progress), CANCELED_FIELD, Date.now());
  await client.zadd(`${job.queueQualifiedName}:${CANCELED_SET}`, Date.now(), job.id!);
}
