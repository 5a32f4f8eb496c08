import { createHash, createHmac } from 'node:crypto';
import { CreditBudgetError } from '../../platform/errors/credit-budget-error';
import { IdempotencyConflictError } from '../../platform/errors/idempotency-conflict-error';
import { JobFinishedError } from '../../platform/errors/job-finished-error';
import { NotFoundError } from '../../platform/errors/not-found-error';
import { PriceExceedsDailyLimitError } from '../../platform/errors/price-exceeds-daily-limit-error';
import { ServiceUnavailableError } from '../../platform/errors/service-unavailable-error';
import { decodeCursor, encodeCursor } from '../../platform/pagination/cursor';
import type { Page } from '../../platform/pagination/page';
import type { LedgerStore, RefundRequest } from '../ledger/ledger-store';
import { canonicalJson } from '../../platform/util/canonical-json';
import { DailyBudget } from '../ledger/daily-budget';
import type { JobIdKeySource } from './job-id-key';
import { toPublicJob, type Job, type JobRecord } from './job';
import type { JobQueue } from './job-queue';
import { JobViewer } from './job-viewer';

/** A paid job to start, as the handler hands it over. */
export interface JobSubmission {
  subject: string;
  operation: string;
  input: Record<string, unknown>;
  cost: number;
  idempotencyKey: string;
}

/** Observers of the submission path; metrics hook here. */
export interface JobServiceHooks {
  onSubmitted?(operation: string, cost: number): void;
  onReplayed?(operation: string): void;
  onConflict?(operation: string): void;
  /** A new job was refused because it would exceed the subject's daily credit budget. */
  onOverBudget?(operation: string): void;
  /**
   * A job is canceled (now, or already was): `credits` is what this call gave back (0 when the queue or an
   * earlier call did). Called on every cancel of a canceled job, so what it records must be idempotent.
   */
  onCanceled?(job: JobRecord, credits: number): Promise<void> | void;
}

/**
 * The refund of a job as the ledger records it: counted on the day of its charge, its record kept twice the
 * retention, so that it outlives the job it guards (finished jobs are removed lazily, after the retention).
 */
export function refundOf(job: Pick<JobRecord, 'subject' | 'id' | 'cost' | 'created_at'>, retentionSeconds: number): RefundRequest {
  return {
    subject: job.subject,
    jobId: job.id,
    credits: job.cost,
    chargedAt: job.created_at,
    ttlSeconds: 2 * retentionSeconds,
    day: job.created_at.slice(0, 10),
  };
}

/** Accepts paid jobs exactly once per (subject, idempotency key) and reads a subject's jobs. */
export class JobService {
  constructor(
    private readonly ledger: LedgerStore,
    private readonly queue: JobQueue,
    private readonly jobIdKey: JobIdKeySource,
    private readonly retentionSeconds: number,
    private readonly hooks: JobServiceHooks = {},
    private readonly budget: DailyBudget = new DailyBudget(undefined),
    /** How each operation's jobs show their input and result: whole when read, summarised when listed. */
    private readonly viewer: JobViewer = new JobViewer(),
  ) {}

  /**
   * Accepts a job, or returns the one an earlier call with the same key accepted. Charging happens inside
   * the ledger's atomic claim, so a retry can never charge twice. A replay that finds no job enqueues it:
   * that repairs a first attempt that was charged but died before enqueueing. A new job that would exceed the
   * daily credit budget is refused (402) by the same atomic claim; a replay of an accepted job is still
   * answered, since it was paid for already (even when its price is now above the whole limit).
   */
  async submit(submission: JobSubmission): Promise<{ job: Job; replayed: boolean }> {
    const jobId = await this.jobIdFor(submission.subject, submission.idempotencyKey);
    const createdAt = new Date().toISOString();
    const { outcome, shard, accepted } = await this.ledger.claim({
      subject: submission.subject,
      key: submission.idempotencyKey,
      fingerprint: fingerprint(submission.operation, submission.input),
      jobId,
      operation: submission.operation,
      cost: submission.cost,
      ttlSeconds: this.retentionSeconds,
      day: this.budget.today(),
      dailyLimit: this.budget.limit,
      shard: this.queue.shardFor(jobId),
      acceptedAt: createdAt,
    });
    if (outcome === 'conflict') {
      this.hooks.onConflict?.(submission.operation);
      throw new IdempotencyConflictError();
    }
    if (outcome === 'over_budget') {
      this.hooks.onOverBudget?.(submission.operation);
      throw this.overBudget(submission.cost);
    }
    if (outcome === 'created') this.hooks.onSubmitted?.(submission.operation, submission.cost);
    else this.hooks.onReplayed?.(submission.operation);
    // A replay reads its job first: enqueueing a known id changes nothing, and skipping it saves the queue's
    // costliest call on every replay (bench/README.md).
    // The claim says which shard holds the key's job (it may predate a change of the shard count): reading and
    // enqueueing there means BullMQ's own duplicate check applies to every retry.
    let stored = outcome === 'replayed' ? await this.queue.get(jobId, shard) : undefined;
    if (!stored) {
      // A replay enqueueing its job (the first call was charged, then died) makes it with the charge the
      // claim recorded: the price rule may have changed since, and the refund must name that very charge.
      stored = await this.queue.enqueue(
        {
          id: jobId,
          subject: submission.subject,
          operation: submission.operation,
          input: submission.input,
          cost: accepted?.cost ?? submission.cost,
          createdAt: accepted?.at ?? createdAt,
        },
        { replaceFinished: outcome === 'created', shard },
      );
      // The queue answers with the job when it knows it is the stored one; otherwise it is read back.
      stored ??= await this.queue.get(jobId, shard);
    }
    // The claim and the enqueue both succeeded, so the job must be there; if not, the backend is failing.
    if (!stored) throw new ServiceUnavailableError();
    // Acknowledged only once the job and its charge would survive the loss of their primary (as configured);
    // a 503 here is safe to retry: the same key finds the same job, charged once. Replays wait too, since a
    // first answer may have been this 503.
    await this.queue.confirmDurable(submission.subject, shard);
    return { job: this.viewer.read(toPublicJob(stored)), replayed: outcome === 'replayed' };
  }

  /**
   * The 402 of a job the budget refused: a price above the whole daily limit can never fit, so it is told
   * apart from a budget that is only used up for today (which names its reset and a `Retry-After`).
   */
  private overBudget(cost: number): Error {
    const limit = this.budget.limit ?? 0;
    if (cost > limit) return new PriceExceedsDailyLimitError(cost, limit);
    return new CreditBudgetError(limit, this.budget.resetsAt(), this.budget.secondsUntilReset());
  }

  /** One of the subject's jobs; another subject's job is a 404 exactly like an unknown id. */
  async get(subject: string, id: string): Promise<Job> {
    const job = await this.queue.get(id);
    if (!job || job.subject !== subject) throw new NotFoundError('No job with this id.');
    await this.repairRefund(job);
    return this.viewer.read(toPublicJob(job));
  }

  /**
   * A canceled job is shown refunded; on Redis a queued job's cancel and its refund are two steps (their keys
   * live in different slots), so a crash between them is repaired by the next read, with the ledger's
   * once-per-job refund (a no-op when it was made). Only within the retention: the refund record outlives it.
   */
  private async repairRefund(job: JobRecord): Promise<void> {
    if (job.status !== 'canceled' || job.cost <= 0 || job.finished_at === null) return;
    if (Date.parse(job.finished_at) + this.retentionSeconds * 1000 < Date.now()) return;
    await this.ledger.refund(refundOf(job, this.retentionSeconds));
  }

  /**
   * Cancels one of the subject's jobs. `running` is false when the job is now canceled (or already was),
   * true when it runs and was asked to stop. The refund of a job canceled while queued is made by the queue
   * in the step that cancels it where the backend can (memory); else here, right after, by the ledger's
   * once-per-job refund, which a repeated cancel calls again harmlessly and which thus repairs a refund an
   * interrupted call missed.
   */
  async cancel(subject: string, id: string): Promise<{ job: Job; running: boolean }> {
    const found = await this.queue.get(id);
    if (!found || found.subject !== subject) throw new NotFoundError('No job with this id.');
    const canceled = await this.queue.cancel(id);
    if (!canceled) throw new NotFoundError('No job with this id.');
    const { outcome, job } = canceled;
    if (outcome === 'finished') throw new JobFinishedError();
    if (outcome === 'requested') return { job: this.viewer.read(toPublicJob(job)), running: true };
    const refunded = job.cost > 0 && (await this.ledger.refund(refundOf(job, this.retentionSeconds)));
    await this.hooks.onCanceled?.(job, refunded ? job.cost : 0);
    return { job: this.viewer.read(toPublicJob(job)), running: false };
  }

  /** The subject's jobs, newest first, each as a list shows it (a page of 100 stays bounded). */
  async list(subject: string, limit: number, cursor?: string): Promise<Page<Job>> {
    const before = cursor === undefined ? undefined : decodeCursor(cursor);
    const ids = await this.ledger.listJobIds(subject, { limit: limit + 1, before });
    const hasMore = ids.length > limit;
    const shown = ids.slice(0, limit);
    const jobs = await Promise.all(shown.map(({ value }) => this.queue.get(value)));
    const missing = shown.filter((_, i) => jobs[i] === undefined).map(({ value }) => value);
    if (missing.length > 0) await this.ledger.pruneJobs(subject, missing);
    const items = jobs.filter((job) => job !== undefined && job.subject === subject).map((job) => this.viewer.list(toPublicJob(job!)));
    return { items, next_cursor: hasMore ? encodeCursor(shown[shown.length - 1].seq) : null };
  }

  /**
   * The job id for a subject's key: an HMAC, so it is stable across retries and replicas, unguessable by
   * anyone without the job-id key, and safe for BullMQ (no `:`, never an integer). The key is the stored
   * one, not the current secret's, so ids survive a `CONNECTOR_SECRET` rotation (see {@link JobIdKeySource}).
   */
  async jobIdFor(subject: string, idempotencyKey: string): Promise<string> {
    const mac = createHmac('sha256', await this.jobIdKey.current())
      .update(`${subject}\n${idempotencyKey}`, 'utf8')
      .digest('base64url');
    return `job_${mac.slice(0, 32)}`;
  }
}

/** Fingerprint of what a key was first used for: the operation and its payload, key order ignored. */
export function fingerprint(operation: string, input: unknown): string {
  return createHash('sha256').update(canonicalJson({ operation, input }), 'utf8').digest('base64url');
}
