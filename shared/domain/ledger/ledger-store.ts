import type { PageQuery, SeqItem } from '../../platform/pagination/page';
import type { CreditAccount, GrantRequest, GrantResult } from '../credits/credit-store';
import type { RepairMark } from './repair-mark';

/** The subject's charges, read together with the admission for an operation that shows them. */
export interface UsageSnapshot {
  usage: Usage;
  /** The UTC day (`YYYY-MM-DD`) `spentOnDay` counts. */
  day: string;
  spentOnDay: number;
  /** The subject's credit account, when the admission read it too (one Redis node, memory). */
  credits?: CreditAccount;
}

/** A request to accept a paid job under an idempotency key. */
export interface ClaimRequest {
  subject: string;
  key: string;
  /** Hash of the operation and its payload; a replay must carry the same one. */
  fingerprint: string;
  jobId: string;
  operation: string;
  cost: number;
  ttlSeconds: number;
  /** The UTC day (`YYYY-MM-DD`) the charge counts against; today's when absent. */
  day?: string;
  /** Credits the subject may be charged on `day`; undefined means no cap. */
  dailyLimit?: number;
  /**
   * Credits the subject may be charged on `day` for this `operation` (its own `limits.dailyCredits`), apart
   * from `dailyLimit`; undefined means no cap of its own. Counts charges only: a refund does not give the
   * operation's allowance back (docs/decisions/operation-limits.md).
   */
  operationLimit?: number;
  /** The job-queue shard a new job goes to; recorded with the key, so a replay finds the job there. */
  shard?: number;
  /**
   * When the job is accepted (its `created_at`, the charge the refund record names): recorded with the key
   * and the cost, so a replay that must enqueue the job (the first call died before it did) makes it with the
   * accepted charge, never a recomputed one. Now when absent.
   */
  acceptedAt?: string;
  /**
   * In `prepaid` billing: hold `cost` on the subject's credit account in the same atomic step (never for a
   * replay, which was held for already); a balance below it refuses the job (`insufficient`), nothing recorded.
   */
  hold?: ClaimHold;
}

/** The hold a claim makes in `prepaid` billing (and for an x402 payer's account whatever the billing). */
export interface ClaimHold {
  /** `CREDITS_LOW_THRESHOLD`: the claim reports a hold that took the balance below it. */
  lowThreshold?: number;
  /**
   * A settled x402 payment funding this job: granted to the subject's account (once per grant id, without
   * expiry) in the claim's own step, before the key is looked at, so the grant and the hold land together.
   * The grant stands whatever the claim answers: the payment moved on chain, so a refused claim leaves its
   * credit on the account (docs/decisions/x402-grant-and-hold.md).
   */
  grant?: GrantRequest;
}

/** A grant the claim's own step made (`ClaimHold.grant`), as the credit store answers one. */
export type ClaimGrant = Extract<GrantResult, { outcome: 'created' }>;

/**
 * A payment settled for one job (the x402 checkout's): its grant to the subject's account is made by the
 * claim's own atomic step, with the hold, and stands whatever the claim answers (a replayed or refused key
 * leaves the credit on the account). `credited` is called once the claim has answered, before any refusal is
 * thrown, with the grant when this claim made it (undefined when it was made before).
 */
export interface JobFunding {
  grant: GrantRequest;
  credited(granted: ClaimGrant | undefined): Promise<void>;
}

/** Milliseconds in a UTC day (no leap seconds in JavaScript time). */
export const DAY_MS = 86_400_000;
// The last day asked for and the instants it spans: nearly every call asks for the same day as the one
// before, and formatting a date costs more than the request's other arithmetic together.
let lastDay = { name: '', from: 0, until: 0 };

/** The UTC date, `YYYY-MM-DD`, of an instant (now by default): the day a charge then counts against. */
export function utcDay(at: number = Date.now()): string {
  if (at >= lastDay.from && at < lastDay.until) return lastDay.name;
  const name = new Date(at).toISOString().slice(0, 10);
  const from = Math.floor(at / DAY_MS) * DAY_MS;
  lastDay = { name, from, until: from + DAY_MS };
  return name;
}

/**
 * The UTC days ending with `day` (`YYYY-MM-DD`), newest first: `day` itself, the one before, and so on,
 * `count` in all.
 */
export function utcDaysBack(day: string, count: number): string[] {
  const start = Date.parse(`${day}T00:00:00.000Z`);
  return Array.from({ length: count }, (_, i) => new Date(start - i * DAY_MS).toISOString().slice(0, 10));
}

// Every claim asks for the same day's cut-off, and formatting a date is a noticeable part of a claim's CPU.
let lastDayBefore = { day: '', days: 0, before: '' };

/** The UTC day `days` days before `day` (`YYYY-MM-DD`). */
export function utcDayBefore(day: string, days: number): string {
  if (lastDayBefore.day !== day || lastDayBefore.days !== days) {
    const before = new Date(Date.parse(`${day}T00:00:00.000Z`) - days * DAY_MS).toISOString().slice(0, 10);
    lastDayBefore = { day, days, before };
  }
  return lastDayBefore.before;
}

/** How many UTC days of spend, today included, the ledger can show (`GET /v1/link/usage?days=`). */
export const SPEND_HISTORY_DAYS = 90;

/**
 * `created`: this call accepted and charged the job. `replayed`: an earlier call did. `conflict`: the key was
 * used for another payload. `over_budget`: a new job that would take the subject over its daily limit;
 * nothing was recorded or charged. `over_operation_budget`: the same for the operation's own daily cap
 * (`operationLimit`). A replay is never over either: the job it names was already paid for.
 * `insufficient` (a claim with a hold): the balance is below the cost; nothing was recorded, held or charged.
 * `grant_conflict` (a claim with a grant): the grant's id names a grant with another body; nothing was written.
 */
export type ClaimOutcome =
  | 'created'
  | 'replayed'
  | 'conflict'
  | 'over_budget'
  | 'over_operation_budget'
  | 'insufficient'
  | 'grant_conflict';

/**
 * A claim's outcome and the shard holding the key's job: the one this claim chose when `created`, the one the
 * first claim chose when `replayed` (the shard count may have changed since), 0 otherwise.
 */
export interface Claim {
  outcome: ClaimOutcome;
  shard: number;
  /**
   * On `replayed`, the charge the key's record holds: the cost and acceptance time of the first claim.
   * Absent for records written by releases before 0.7.0, which did not hold it (the caller's own figures are
   * the only ones then).
   */
  accepted?: { cost: number; at: string };
  /** For a claim with a hold, on `created` and `insufficient`: the credit account after the step. */
  account?: CreditAccount;
  /** On `created` with a hold that took the balance below the threshold: the hold entry's id (for `credits.low`). */
  fellLowEntry?: string;
  /** For a claim with a grant that this step made (not one made before), whatever the outcome but `grant_conflict`. */
  granted?: ClaimGrant;
}

/** What a subject has been charged. */
export interface Usage {
  jobs_charged: number;
  /** Credits charged minus credits refunded. */
  credits_spent: number;
  credits_refunded: number;
}

/** One UTC day's money: what was charged that day and what was given back that day. */
export interface DaySpend {
  charged: number;
  refunded: number;
}

/** A job's credits to give back; `day` (UTC, `YYYY-MM-DD`, today's when absent) is the day the refund counts on. */
export interface RefundRequest {
  subject: string;
  jobId: string;
  credits: number;
  /**
   * The charge refunded (its job's `created_at`): a job made again under the same id after its key expired
   * is a new charge, which a record of the old one does not block.
   */
  chargedAt: string;
  /** How long the refund record is kept: at least as long as the job it refunds. */
  ttlSeconds: number;
  day?: string;
}

/**
 * Idempotency records, charges and the per-subject job index. `claim` is the one atomic step that makes a
 * paid job happen at most once and within the daily budget: check the budget, record the key, charge, index
 * the job, all or nothing.
 */
export interface LedgerStore {
  claim(request: ClaimRequest): Promise<Claim>;
  /** True while the idempotency record of the subject's job `jobId` is kept: its key was accepted. Reads only. */
  isClaimed(subject: string, jobId: string): Promise<boolean>;
  /** Job ids of a subject, newest first. */
  listJobIds(subject: string, query: PageQuery): Promise<Array<SeqItem<string>>>;
  usage(subject: string): Promise<Usage>;
  /** Net credits spent by the subject on one UTC day (`YYYY-MM-DD`): that day's charges minus its refunds. */
  spentOn(subject: string, day: string): Promise<number>;
  /**
   * Credits charged and refunded on each of `days` (UTC, `YYYY-MM-DD`), in the same order; their difference
   * is the figure `spentOn` gives and the spend cap reads, kept for the last {@link SPEND_HISTORY_DAYS} days
   * (older days may read 0).
   */
  spentOnDays(subject: string, days: readonly string[]): Promise<DaySpend[]>;
  /**
   * Gives a job's credits back, at most once per job whatever the number of callers: resolves true for the
   * one call that refunded, false for every other. The refund record and the usage change are one step.
   */
  refund(request: RefundRequest): Promise<boolean>;
  /**
   * Drops from the subject's index those of `jobIds` whose idempotency record has expired: their jobs are
   * gone for good. An id whose record is still alive is kept, since its job may be about to be enqueued.
   */
  pruneJobs(subject: string, jobIds: readonly string[]): Promise<void>;
  /** Up to `limit` open holds accepted at or before `acceptedBefore` (ms), oldest first: the orphan sweep's work. */
  dueHolds(acceptedBefore: number, limit: number): Promise<DueHold[]>;
  /**
   * Releases the hold of a job that was never enqueued, in one step, at most once whatever the number of
   * sweepers: only an open hold of that very acceptance is released (a `release` entry with reason
   * `orphaned`), and the key's idempotency record of that acceptance is dropped with it, so a retry of the
   * key is a new submit, and the usage is refunded what was released (once per charge). Answers the credits
   * released (0 when nothing was open); the index entry is dropped. Nothing is done, and the index entry kept,
   * when the hold's repair mark is not `repairMark` any more: a retry took it, and is enqueueing the job.
   */
  releaseOrphan(request: OrphanRequest): Promise<number>;
  /**
   * Takes the repair mark of the hold of the key's acceptance `at`, in one step with a check that the key's
   * record is still that acceptance's: what a retry does before it enqueues the job its first attempt never
   * did. False when the record is gone or another acceptance's (the sweep released the hold): the key must be
   * claimed again. The mark is kept `ttlSeconds`.
   */
  markRepair(request: RepairRequest): Promise<boolean>;
  /** The hold's repair mark, when a retry took one: what the sweep reads before it looks for the hold's job. */
  repairMarkOf(hold: DueHold): Promise<RepairMark | undefined>;
  /** Drops a hold from the sweep's index: its job exists, so its ending settles it. */
  forgetHold(hold: DueHold): Promise<void>;
}

/** An open hold the orphan sweep looks at: whose, which job, and the acceptance (ISO 8601) it belongs to. */
export interface DueHold {
  subject: string;
  jobId: string;
  at: string;
}

/** The release of an orphaned hold: the hold, and how long its settled record and its refund record are kept (as a settlement's). */
export interface OrphanRequest extends DueHold {
  ttlSeconds: number;
  /** The repair mark the sweep read before it looked for the job (none: the hold had none). */
  repairMark?: RepairMark;
}

/** A retry's repair of its key's acceptance: the hold it marks, the mark, and how long the mark is kept. */
export interface RepairRequest extends DueHold {
  mark: RepairMark;
  ttlSeconds: number;
}
