import type { GrantRequest, GrantResult, HoldRequest, HoldResult } from '../../domain/credits/credit-store';
import {
  type Claim,
  type ClaimOutcome,
  type ClaimRequest,
  type DaySpend,
  type DueHold,
  type LedgerStore,
  type OrphanRequest,
  type RefundRequest,
  type RepairRequest,
  SPEND_HISTORY_DAYS,
  type Usage,
  utcDay,
  utcDayBefore,
} from '../../domain/ledger/ledger-store';
import type { RepairMark } from '../../domain/ledger/repair-mark';
import type { PageQuery, SeqItem } from '../../platform/pagination/page';
import { SubjectSequence } from './subject-sequence';

/**
 * The credit accounts a claim grants a settled payment to and holds on, in the same synchronous step (the memory
 * credit store's `grantNow` and `holdNow`), and the orphan sweep releases on (`releaseOrphanNow`).
 */
export interface SyncCreditHolds {
  grantNow(request: GrantRequest): GrantResult;
  holdNow(request: HoldRequest): HoldResult;
  releaseOrphanNow(request: OrphanRequest): number;
}

interface IdempotencyRecord {
  fingerprint: string;
  shard: number;
  /** The charge accepted under the key, which a replay re-enqueueing its job uses. */
  accepted: { cost: number; at: string };
  expiresAt: number;
}

/**
 * Idempotency records, usage and the job index in memory. `claim` has no await between its check and its
 * writes, so concurrent requests in this one process cannot both win; a claim with a hold holds on `credits`
 * within that step.
 */
export class MemoryLedgerStore implements LedgerStore {
  constructor(private readonly credits?: SyncCreditHolds) {}

  private readonly records = new Map<string, IdempotencyRecord>();
  private readonly usageBySubject = new Map<string, Usage>();
  private readonly jobs = new SubjectSequence<string>();
  /** Credits charged per UTC day, then per subject; days beyond the history are dropped as new ones start. */
  private readonly spentByDay = new Map<string, Map<string, number>>();
  /** Credits refunded per UTC day, then per subject; pruned with the charges. */
  private readonly refundedByDay = new Map<string, Map<string, number>>();
  /**
   * Credits charged per UTC day, then per subject and operation (`subject\u0000operation`), for the operations
   * with a daily cap of their own; refunds do not give them back. Pruned with the charges.
   */
  private readonly operationSpentByDay = new Map<string, Map<string, number>>();
  /** Jobs already refunded: the charge refunded and when the record expires; the exactly-once guard. */
  private readonly refunds = new Map<string, { chargedAt: string; expiresAt: number }>();
  /** Open holds by job id, for the orphan sweep; a hold leaves once released or once its job is found. */
  private readonly openHolds = new Map<string, DueHold>();
  /** Repair marks by job id, each with when it expires: what a retry took before enqueueing its job. */
  private readonly repairs = new Map<string, { mark: RepairMark; expiresAt: number }>();

  /**
   * With a grant (a settled x402 payment), the grant first, then the claim, in one synchronous step: the grant
   * stands whatever the claim answers.
   */
  async claim(request: ClaimRequest): Promise<Claim> {
    const grant = request.hold?.grant;
    if (!grant) return this.claimNow(request);
    const granted = this.grantNow(grant);
    if (granted.outcome === 'conflict') return { outcome: 'grant_conflict', shard: 0 };
    const claim = this.claimNow(request);
    return granted.outcome === 'created' ? { ...claim, granted } : claim;
  }

  private grantNow(grant: GrantRequest): GrantResult {
    if (!this.credits) throw new Error('a claim with a grant needs the credit store');
    return this.credits.grantNow(grant);
  }

  private claimNow(request: ClaimRequest): Claim {
    const now = Date.now();
    const existing = this.records.get(request.jobId);
    if (existing && existing.expiresAt > now) {
      return existing.fingerprint === request.fingerprint
        ? { outcome: 'replayed', shard: existing.shard, accepted: { ...existing.accepted } }
        : { outcome: 'conflict', shard: 0 };
    }
    const day = request.day ?? utcDay(now);
    const spentToday = this.spentDay(day);
    const spent = spentToday.get(request.subject) ?? 0;
    const operationSpent = this.operationDay(day).get(operationKeyOf(request)) ?? 0;
    const refused = this.overBudget(request, spent - (this.refundedByDay.get(day)?.get(request.subject) ?? 0), operationSpent);
    if (refused) return { outcome: refused, shard: 0 };
    const acceptedAt = request.acceptedAt ?? new Date(now).toISOString();
    const held = this.hold(request, acceptedAt);
    if (held?.outcome === 'insufficient') return { outcome: 'insufficient', shard: 0, account: held.account };
    this.indexHold(request, held, acceptedAt);
    spentToday.set(request.subject, spent + request.cost);
    this.chargeOperation(request, day, operationSpent);
    const shard = request.shard ?? 0;
    this.record(request, { acceptedAt, expiresAt: now + request.ttlSeconds * 1000, shard }, existing !== undefined);
    if (!held) return { outcome: 'created', shard };
    const fellLow = held.outcome === 'held' && held.fellLow && held.entry ? { fellLowEntry: held.entry.id } : {};
    return { outcome: 'created', shard, account: held.account, ...fellLow };
  }

  /** Which daily cap the claim would break, given the subject's net spend that day and its charges on the operation. */
  private overBudget(request: ClaimRequest, net: number, operationSpent: number): ClaimOutcome | undefined {
    if (request.dailyLimit !== undefined && net + request.cost > request.dailyLimit) return 'over_budget';
    if (request.operationLimit !== undefined && operationSpent + request.cost > request.operationLimit) return 'over_operation_budget';
    return undefined;
  }

  /** The accepted claim's writes: its record, the subject's usage and its job index (part of the claim's step). */
  private record(request: ClaimRequest, at: { acceptedAt: string; expiresAt: number; shard: number }, expiredBefore: boolean): void {
    this.records.set(request.jobId, {
      fingerprint: request.fingerprint,
      shard: at.shard,
      accepted: { cost: request.cost, at: at.acceptedAt },
      expiresAt: at.expiresAt,
    });
    const usage = this.usageBySubject.get(request.subject) ?? { jobs_charged: 0, credits_spent: 0, credits_refunded: 0 };
    usage.jobs_charged += 1;
    usage.credits_spent += request.cost;
    this.usageBySubject.set(request.subject, usage);
    // A key claimed again after its record expired names the same job id: keep one index entry, the newest.
    if (expiredBefore) this.jobs.pruneSubject(request.subject, (id) => id !== request.jobId);
    this.jobs.add(request.subject, request.jobId);
  }

  /** A hold the claim just made, indexed for the orphan sweep. */
  private indexHold(request: ClaimRequest, held: HoldResult | undefined, at: string): void {
    if (held?.outcome === 'held') this.openHolds.set(request.jobId, { subject: request.subject, jobId: request.jobId, at });
  }

  /** The claim's hold, when it asks for one: part of its synchronous step. */
  private hold(request: ClaimRequest, at: string): HoldResult | undefined {
    if (!request.hold) return undefined;
    if (!this.credits) throw new Error('a claim with a hold needs the credit store');
    const { lowThreshold } = request.hold;
    return this.credits.holdNow({
      subject: request.subject,
      jobId: request.jobId,
      credits: request.cost,
      at,
      ...(lowThreshold === undefined ? {} : { lowThreshold }),
    });
  }

  async isClaimed(_subject: string, jobId: string): Promise<boolean> {
    // A job id is an HMAC of the subject and its key, so it names one subject's record.
    return (this.records.get(jobId)?.expiresAt ?? 0) > Date.now();
  }

  async listJobIds(subject: string, query: PageQuery): Promise<Array<SeqItem<string>>> {
    return this.jobs.page(subject, query);
  }

  async usage(subject: string): Promise<Usage> {
    return { ...(this.usageBySubject.get(subject) ?? { jobs_charged: 0, credits_spent: 0, credits_refunded: 0 }) };
  }

  async spentOn(subject: string, day: string): Promise<number> {
    return (this.spentByDay.get(day)?.get(subject) ?? 0) - (this.refundedByDay.get(day)?.get(subject) ?? 0);
  }

  async spentOnDays(subject: string, days: readonly string[]): Promise<DaySpend[]> {
    return days.map((day) => ({
      charged: this.spentByDay.get(day)?.get(subject) ?? 0,
      refunded: this.refundedByDay.get(day)?.get(subject) ?? 0,
    }));
  }

  /** Synchronous up to its result, so a caller can make it part of the same step as a job's transition. */
  async refund(request: RefundRequest): Promise<boolean> {
    return this.refundNow(request);
  }

  /** The refund as one synchronous step: the in-memory queue calls it in the step that ends the job. */
  refundNow(request: RefundRequest): boolean {
    const now = Date.now();
    const existing = this.refunds.get(request.jobId);
    if (existing && existing.expiresAt > now && existing.chargedAt === request.chargedAt) return false;
    this.refunds.set(request.jobId, { chargedAt: request.chargedAt, expiresAt: now + request.ttlSeconds * 1000 });
    const day = request.day ?? utcDay(now);
    this.spentDay(day);
    let refunded = this.refundedByDay.get(day);
    if (!refunded) {
      refunded = new Map();
      this.refundedByDay.set(day, refunded);
    }
    refunded.set(request.subject, (refunded.get(request.subject) ?? 0) + request.credits);
    const usage = this.usageBySubject.get(request.subject) ?? { jobs_charged: 0, credits_spent: 0, credits_refunded: 0 };
    usage.credits_spent -= request.credits;
    usage.credits_refunded += request.credits;
    this.usageBySubject.set(request.subject, usage);
    return true;
  }

  async pruneJobs(subject: string, jobIds: readonly string[]): Promise<void> {
    const now = Date.now();
    const gone = new Set(jobIds.filter((id) => !((this.records.get(id)?.expiresAt ?? 0) > now)));
    this.jobs.pruneSubject(subject, (id) => !gone.has(id));
  }

  async dueHolds(acceptedBefore: number, limit: number): Promise<DueHold[]> {
    const due = [...this.openHolds.values()].filter((hold) => Date.parse(hold.at) <= acceptedBefore);
    return due.sort((x, y) => Date.parse(x.at) - Date.parse(y.at)).slice(0, limit);
  }

  /**
   * One synchronous step: the repair mark's check (a mark taken since the sweep read it leaves everything,
   * the index entry included, as it is), the hold's release (when it is still open for that acceptance), the
   * key's record and the usage's refund.
   */
  async releaseOrphan(request: OrphanRequest): Promise<number> {
    if (!this.credits) throw new Error('an orphaned hold needs the credit store');
    if ((this.liveRepair(request.jobId) ?? '') !== (request.repairMark ?? '')) return 0;
    const released = this.credits.releaseOrphanNow(request);
    if (released <= 0) {
      this.forgetNow(request);
      return 0;
    }
    this.repairs.delete(request.jobId);
    const record = this.records.get(request.jobId);
    if (record?.accepted.at === request.at) this.records.delete(request.jobId);
    // The usage counted the price as charged at the claim: refunded in the same step, as a settlement's release is.
    const { subject, jobId, at, ttlSeconds } = request;
    this.refundNow({ subject, jobId, credits: released, chargedAt: at, ttlSeconds, day: at.slice(0, 10) });
    this.forgetNow(request);
    return released;
  }

  /** One synchronous step: the key's record checked (that acceptance's, still kept), the mark set. */
  async markRepair(request: RepairRequest): Promise<boolean> {
    const now = Date.now();
    const record = this.records.get(request.jobId);
    if (!record || record.expiresAt <= now || Date.parse(record.accepted.at) !== Date.parse(request.at)) return false;
    this.repairs.set(request.jobId, { mark: request.mark, expiresAt: now + request.ttlSeconds * 1000 });
    return true;
  }

  async repairMarkOf(hold: DueHold): Promise<RepairMark | undefined> {
    return this.liveRepair(hold.jobId);
  }

  private liveRepair(jobId: string): RepairMark | undefined {
    const repair = this.repairs.get(jobId);
    return repair && repair.expiresAt > Date.now() ? repair.mark : undefined;
  }

  async forgetHold(hold: DueHold): Promise<void> {
    this.forgetNow(hold);
  }

  private forgetNow(hold: DueHold): void {
    if (this.openHolds.get(hold.jobId)?.at === hold.at) this.openHolds.delete(hold.jobId);
  }

  private spentDay(day: string): Map<string, number> {
    let spent = this.spentByDay.get(day);
    if (!spent) {
      const oldest = utcDayBefore(day, SPEND_HISTORY_DAYS);
      for (const byDay of [this.spentByDay, this.refundedByDay, this.operationSpentByDay]) {
        for (const past of byDay.keys()) if (past < oldest) byDay.delete(past);
      }
      spent = new Map();
      this.spentByDay.set(day, spent);
    }
    return spent;
  }

  /** Counts the claim's charge against its operation's own cap (only an operation with one keeps a count). */
  private chargeOperation(request: ClaimRequest, day: string, spent: number): void {
    if (request.operationLimit !== undefined) this.operationDay(day).set(operationKeyOf(request), spent + request.cost);
  }

  private operationDay(day: string): Map<string, number> {
    let spent = this.operationSpentByDay.get(day);
    if (!spent) {
      spent = new Map();
      this.operationSpentByDay.set(day, spent);
    }
    return spent;
  }

  /** Forgets expired records and index entries of jobs that are gone; called by the queue's sweeper. */
  prune(jobExists: (jobId: string) => boolean): void {
    const now = Date.now();
    for (const [jobId, record] of this.records) if (record.expiresAt <= now) this.records.delete(jobId);
    for (const [jobId, record] of this.refunds) if (record.expiresAt <= now) this.refunds.delete(jobId);
    for (const [jobId, repair] of this.repairs) if (repair.expiresAt <= now) this.repairs.delete(jobId);
    this.jobs.prune(jobExists);
  }
}

/** Where a subject's charges on one operation are counted in a day's map. */
function operationKeyOf({ subject, operation }: ClaimRequest): string {
  return `${subject}\u0000${operation}`;
}
