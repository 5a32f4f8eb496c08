import {
  CreditBudgetError,
  GrantConflictError,
  IdempotencyConflictError,
  InsufficientCreditsError,
  JobFinishedError,
  NotFoundError,
  OperationBudgetError,
  PriceExceedsDailyLimitError,
  PriceExceedsOperationLimitError,
  ServiceUnavailableError,
} from '../../platform/errors/problems';
import { decodeCursor, encodeCursor } from '../../platform/pagination/cursor';
import type { Page } from '../../platform/pagination/page';
import type { AdmissionAlong } from '../admission/admission-store';
import type { GrantRequest } from '../credits/credit-store';
import { DailyBudget } from '../ledger/daily-budget';
import type { ClaimHold, JobFunding, LedgerStore } from '../ledger/ledger-store';
import { newRepairMark } from '../ledger/repair-mark';
import { isX402Subject } from '../x402/x402-subject';
import { type ClaimRead, type ClaimReader, claimsBeside } from './claim-reader';
import { Idempotency, type KeyClaim } from './idempotency';
import { type Job, type JobRecord, toPublicJob } from './job';
import type { JobIdKeySource } from './job-id-key';
import type { JobLifecycle } from './job-lifecycle';
import type { JobQueue } from './job-queue';
import { JobViewer } from './job-viewer';

/** The job a claim's id names, as read on the shard a new job goes to (absent: not there). */
interface Seen {
  shard: number;
  job?: JobRecord;
}

/** A claim, the job read with it, and the replay's job when found. */
interface ClaimedJob {
  claim: KeyClaim;
  seen: Seen;
  found?: JobRecord;
}

/** A paid job to start, as the handler hands it over. */
export interface JobSubmission {
  subject: string;
  operation: string;
  input: Record<string, unknown>;
  cost: number;
  idempotencyKey: string;
  /** The operation's own daily cap (`limits.dailyCredits`): the claim refuses a job beyond it (402). */
  operationDailyLimit?: number;
  /** A settled x402 payment that funds this job: granted in the claim's own step (see {@link JobFunding}). */
  funding?: JobFunding;
  /**
   * The caller's bearer admission, put off until this claim ({@link JobService.admitsWithClaim}): made by the
   * claim's step, first; a request it refuses claims nothing.
   */
  admission?: AdmissionAlong;
}

/** Observers of the submission path; metrics hook here. */
export interface JobServiceHooks {
  onSubmitted?(operation: string, cost: number): void;
  onReplayed?(operation: string): void;
  onConflict?(operation: string): void;
  /** A new job was refused because it would exceed the subject's daily credit budget. */
  onOverBudget?(operation: string): void;
  /** A new job was refused (402) in prepaid billing: the balance was below its price. */
  onInsufficient?(operation: string): void;
}

/**
 * How jobs are paid for: in `prepaid` billing the claim holds each new job's price on the subject's credits;
 * a balance short of it is a 402 naming where to top up. (`CreditService` is one.)
 */
export interface JobBilling {
  readonly prepaid: boolean;
  /** `TOP_UP_URL` (default `DASHBOARD_URL`): named by the 402 of a balance short of a price. */
  readonly topUpUrl: string;
  /** `CREDITS_LOW_THRESHOLD`, when set. */
  readonly lowThreshold?: number;
  /**
   * `HOLD_ORPHAN_SECONDS`: a hold whose job is missing may be released by the sweep this long after its claim,
   * or after a retry's repair mark; the mark is kept at least twice this.
   */
  readonly orphanSeconds?: number;
  /** Records `credits.low` for the hold entry `entryId` that took the balance below the threshold. */
  recordLow(subject: string, entryId: string, balance: number): Promise<void>;
}

/** Metered billing: nothing is held. */
const METERED: JobBilling = { prepaid: false, topUpUrl: '', recordLow: async () => {} };

/** What a {@link JobService} is built from (shared/adapters/compose-jobs.ts builds it). */
export interface JobServiceDeps {
  ledger: LedgerStore;
  queue: JobQueue;
  /** Settles and records a job a queue's cancel has ended, and repairs its refund. */
  lifecycle: JobLifecycle;
  jobIdKey: JobIdKeySource;
  /** The idempotency retention: how long an accepted key, its job and its refund record are kept. */
  retentionSeconds: number;
  hooks?: JobServiceHooks;
  budget?: DailyBudget;
  /** How each operation's jobs show their input and result: whole when read, summarised when listed. */
  viewer?: JobViewer;
  billing?: JobBilling;
  /** Makes a claim and its job's read in one step, where the backend can (one Redis node); else the two go side by side. */
  claimReader?: ClaimReader;
}

/** What the domain adds to a backend's ledger, queue and lifecycle to make its {@link JobService}. */
export type JobServiceParts = Omit<JobServiceDeps, 'ledger' | 'queue' | 'lifecycle' | 'retentionSeconds'>;

/** Accepts paid jobs exactly once per (subject, idempotency key) and reads a subject's jobs. */
export class JobService {
  private readonly idempotency: Idempotency;
  private readonly ledger: LedgerStore;
  private readonly queue: JobQueue;
  private readonly lifecycle: JobLifecycle;
  private readonly retentionSeconds: number;
  private readonly hooks: JobServiceHooks;
  private readonly budget: DailyBudget;
  private readonly viewer: JobViewer;
  private readonly billing: JobBilling;
  private readonly claims: ClaimReader;

  constructor(deps: JobServiceDeps) {
    this.ledger = deps.ledger;
    this.queue = deps.queue;
    this.lifecycle = deps.lifecycle;
    this.retentionSeconds = deps.retentionSeconds;
    this.hooks = deps.hooks ?? {};
    this.budget = deps.budget ?? new DailyBudget(undefined);
    this.viewer = deps.viewer ?? new JobViewer();
    this.billing = deps.billing ?? METERED;
    this.claims = deps.claimReader ?? claimsBeside(deps.ledger, deps.queue);
    this.idempotency = new Idempotency(deps.jobIdKey, deps.retentionSeconds, this.budget);
  }

  /** Whether a submission may carry its caller's admission, made in the claim's step ({@link JobSubmission.admission}). */
  get admitsWithClaim(): boolean {
    return this.claims.admitClaimAndRead !== undefined;
  }

  /**
   * Accepts a job, or returns the one an earlier call with the same key accepted. Charging happens inside
   * the ledger's atomic claim, so a retry can never charge twice. A replay that finds no job enqueues it:
   * that repairs a first attempt that was charged but died before enqueueing (under the hold's repair mark,
   * which keeps the orphan sweep off that hold). A new job that would exceed the
   * daily credit budget is refused (402) by the same atomic claim; a replay of an accepted job is still
   * answered, since it was paid for already (even when its price is now above the whole limit).
   */
  async submit(submission: JobSubmission): Promise<{ job: Job; replayed: boolean }> {
    const { claim, seen, found } = await this.claimWithJob(submission);
    this.refuseUnless(claim, submission);
    if (claim.fellLowEntry && claim.account) await this.billing.recordLow(submission.subject, claim.fellLowEntry, claim.account.balance);
    const { outcome, shard, jobId } = claim;
    let stored = found;
    if (!stored) {
      // A replay enqueueing its job (the first call was charged, then died) makes it with the charge the
      // claim recorded: the price rule may have changed since, and the refund must name that very charge.
      // Enqueueing on the claim's shard means BullMQ's own duplicate check applies to every retry.
      stored = await this.queue.enqueue(
        {
          id: jobId,
          subject: submission.subject,
          operation: submission.operation,
          input: submission.input,
          cost: claim.accepted?.cost ?? submission.cost,
          createdAt: claim.accepted?.at ?? claim.acceptedAt,
        },
        { replaceFinished: outcome === 'created', shard, absent: seen.shard === shard && !seen.job },
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
   * The claim of the submission's key and, for a replay, its job. A replay whose job is missing (the first
   * attempt was charged, then died before enqueueing) takes the hold's repair mark before it enqueues the job,
   * so that the orphan sweep cannot release that hold under it; when the sweep released it first, the key was
   * freed in the same step, and is claimed again: a new hold, or a 402. Freed twice running, it answers 503.
   * A funded claim grants in its first attempt only (a second finds the grant id used), and its funding is told
   * as soon as that attempt answers, so that whatever fails after it the grant's event is not lost.
   */
  private async claimWithJob(submission: JobSubmission): Promise<ClaimedJob> {
    for (let attempt = 0; attempt < 2; attempt++) {
      // The admission goes with the first claim only: a second would count the request twice.
      const { claim, seen } = await this.claimAndLook(submission, attempt === 0 ? submission.admission : undefined);
      if (attempt === 0 && submission.funding && claim.outcome !== 'grant_conflict') await submission.funding.credited(claim.granted);
      if (claim.outcome !== 'replayed') return { claim, seen };
      // A replay's job is the one read with the claim, when it was read where the claim says the job is (the
      // claim may predate a change of the shard count): enqueueing a known id changes nothing, and skipping it
      // saves the queue's costliest call on every replay (bench/README.md).
      const found = seen.shard === claim.shard ? seen.job : await this.queue.get(claim.jobId, claim.shard);
      if (found || (await this.markedForRepair(submission.subject, claim))) return { claim, seen, found };
    }
    throw new ServiceUnavailableError();
  }

  /**
   * Whether a replay may enqueue its missing job: it took the hold's repair mark while the key's record was
   * still that acceptance's, or there is no hold to mark (metered, or a record from before acceptances were
   * kept). The mark outlives any deadline the sweep may still compare it with.
   */
  private async markedForRepair(subject: string, claim: KeyClaim): Promise<boolean> {
    if (!this.holds(subject) || !claim.accepted) return true;
    const ttlSeconds = Math.max(this.retentionSeconds, 2 * (this.billing.orphanSeconds ?? 0));
    return this.ledger.markRepair({ subject, jobId: claim.jobId, at: claim.accepted.at, mark: newRepairMark(), ttlSeconds });
  }

  /**
   * The claim of the submission's key, and the job its id names on the shard a new job goes to, read in the
   * same round trip: a replay's answer, or, when there is none, the knowledge that a new job's `add` stores
   * it (then it needs no read-back).
   */
  private async claimAndLook(submission: JobSubmission, admission: AdmissionAlong | undefined): Promise<{ claim: KeyClaim; seen: Seen }> {
    const jobId = await this.idempotency.jobIdFor(submission.subject, submission.idempotencyKey);
    const shard = this.queue.shardFor(jobId);
    const request = this.idempotency.requestFor(submission, jobId, shard, this.hold(submission.subject, submission.funding?.grant));
    const { claim, job } = admission ? await this.admitAndClaim(request, admission) : await this.claims.claimAndRead(request);
    return { claim: { ...claim, jobId, acceptedAt: request.acceptedAt }, seen: { shard, job } };
  }

  /**
   * The caller's admission and the claim in the reader's one step; the API is told the admission's outcome
   * before anything else, and throws its refusal (nothing was claimed then).
   */
  private async admitAndClaim(request: Parameters<ClaimReader['claimAndRead']>[0], admission: AdmissionAlong): Promise<ClaimRead> {
    // Fail closed: an admission put off on a backend that cannot make it must not let the request through.
    if (!this.claims.admitClaimAndRead) throw new Error('this backend cannot admit a request in its claim');
    const { admission: answer, read } = await this.claims.admitClaimAndRead(request, admission.request);
    await admission.settle(answer);
    // Settled without a refusal, the step claimed: a read missing here is a backend failing.
    if (!read) throw new ServiceUnavailableError();
    return read;
  }

  /** Whether the subject's jobs hold their price: in prepaid billing, and always for an x402 payer's account. */
  private holds(subject: string): boolean {
    return this.billing.prepaid || isX402Subject(subject);
  }

  /**
   * The hold a claim makes: in prepaid billing, and for an x402 payer's account whatever the billing; a funded
   * claim always holds, its grant in the same step.
   */
  private hold(subject: string, grant: GrantRequest | undefined): ClaimHold | undefined {
    if (!this.holds(subject) && !grant) return undefined;
    const { lowThreshold } = this.billing;
    return { ...(lowThreshold === undefined ? {} : { lowThreshold }), ...(grant ? { grant } : {}) };
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

  /** The 402 of a job its operation's own daily cap refused: as {@link JobService.overBudget}, naming the operation. */
  private overOperationBudget({ operation, cost, operationDailyLimit = 0 }: JobSubmission): Error {
    if (cost > operationDailyLimit) return new PriceExceedsOperationLimitError(operation, cost, operationDailyLimit);
    return new OperationBudgetError(operation, operationDailyLimit, this.budget.resetsAt(), this.budget.secondsUntilReset());
  }

  /** Throws the refusal of a claim that accepted nothing (a conflict: 422; over the budget or short of credits: 402); counts the others. */
  private refuseUnless(claim: KeyClaim, submission: JobSubmission): void {
    // The payment's id names another grant: it funded something else already (checked before settling too).
    if (claim.outcome === 'grant_conflict') throw new GrantConflictError();
    if (claim.outcome === 'conflict') {
      this.hooks.onConflict?.(submission.operation);
      throw new IdempotencyConflictError();
    }
    if (claim.outcome === 'over_budget') {
      this.hooks.onOverBudget?.(submission.operation);
      throw this.overBudget(submission.cost);
    }
    if (claim.outcome === 'over_operation_budget') {
      this.hooks.onOverBudget?.(submission.operation);
      throw this.overOperationBudget(submission);
    }
    if (claim.outcome === 'insufficient') {
      this.hooks.onInsufficient?.(submission.operation);
      throw new InsufficientCreditsError(claim.account?.balance ?? 0, submission.cost, this.billing.topUpUrl);
    }
    if (claim.outcome === 'created') this.hooks.onSubmitted?.(submission.operation, submission.cost);
    else this.hooks.onReplayed?.(submission.operation);
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
   * live in different slots), so a crash between them is repaired by the next read, with the lifecycle's
   * once-per-job settlement (a no-op when it was made). Only within the retention: the refund record outlives it.
   * Only for a job that never started: one canceled while it ran was settled by its worker before it showed
   * canceled, and may have kept its price (its `cancelCharge`), which a refund in full here would undo.
   */
  private async repairRefund(job: JobRecord): Promise<void> {
    if (job.status !== 'canceled' || job.cost <= 0 || job.finished_at === null || job.started_at !== null) return;
    if (Date.parse(job.finished_at) + this.retentionSeconds * 1000 < Date.now()) return;
    await this.lifecycle.settleCanceled(job, { repair: true });
  }

  /**
   * Cancels one of the subject's jobs. `running` is false when the job is now canceled (or already was),
   * true when it runs and was asked to stop. A queued job's cancel ends it at once in the queue; its charge
   * is settled there too where the backend can (memory), else here, right after, by the lifecycle's once-per-job
   * settlement, which a repeated cancel runs again harmlessly and which thus repairs a refund or an event an
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
    await this.lifecycle.settleCanceled(job);
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

  /** True when the subject's idempotency key was accepted already (and is still kept): a replay, charged before. */
  async isAccepted(subject: string, idempotencyKey: string): Promise<boolean> {
    return this.ledger.isClaimed(subject, await this.idempotency.jobIdFor(subject, idempotencyKey));
  }

  /** The job id a subject's key names ({@link Idempotency.jobIdFor}). */
  jobIdFor(subject: string, idempotencyKey: string): Promise<string> {
    return this.idempotency.jobIdFor(subject, idempotencyKey);
  }
}
