import type { GrantRequest } from '../../domain/credits/credit-store';
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
import { newId } from '../../platform/util/ids';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisClient } from './redis-client';
import { grantResultOf, RedisGrantIds } from './redis-grant-ids';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';
import { pageBySeq } from './sequence-page';

/** A day's spend is read until that day ends; two days covers it whatever the time of the first charge. */
const SPEND_KEY_SECONDS = 2 * 86_400;
/**
 * The history keeps its shown days and one more (a day that began between reading the clock and the claim);
 * it outlives the first charge of its newest day by that many days and one.
 */
const HISTORY_KEPT_DAYS = SPEND_HISTORY_DAYS + 1;
const HISTORY_KEY_SECONDS = (HISTORY_KEPT_DAYS + 1) * 86_400;

const OUTCOMES: ReadonlySet<string> = new Set<ClaimOutcome>([
  'created',
  'replayed',
  'conflict',
  'over_budget',
  'over_operation_budget',
  'insufficient',
  'grant_conflict',
]);

/** What the claim script answers (`lua/redis-ledger-store/claim-12.lua`). */
export type ClaimReply = [string, number, number?, number?, number?, ...Array<string | number>];

const claimReplyItself = (reply: ClaimReply): ClaimReply => reply;

/** What a script that claims along adds to the claim's keys and arguments ({@link RedisLedgerStore.claimAlong}). */
export interface ClaimExtras {
  keys: readonly string[];
  args?: ReadonlyArray<string | number>;
}

const NO_EXTRAS: ClaimExtras = { keys: [] };

/** The claim of a script that always claims; throws if it answered none (a script broken, not a request refused). */
export function claimMade(claim: Claim | undefined): Claim {
  if (!claim) throw new Error('the claim script answered no claim');
  return claim;
}

/**
 * Idempotency records, charges and the per-subject job index in Redis. The claim, the refund and the prune are
 * one script each (`lua/redis-ledger-store/`), so concurrent callers on any replica see each whole or not at all.
 */
export class RedisLedgerStore implements LedgerStore {
  private readonly claimScript: LuaScript<ClaimReply>;
  private readonly pruneScript: LuaScript<number>;
  private readonly refundScript: LuaScript<number>;
  private readonly releaseOrphanScript: LuaScript<number>;
  private readonly markRepairScript: LuaScript<number>;
  private readonly grantIds: RedisGrantIds;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {
    this.claimScript = defineLuaScript(client, 'redis-ledger-store/claim');
    this.refundScript = defineLuaScript(client, 'redis-ledger-store/refund');
    this.pruneScript = defineLuaScript(client, 'redis-ledger-store/prune');
    this.releaseOrphanScript = defineLuaScript(client, 'redis-ledger-store/release-orphan');
    this.markRepairScript = defineLuaScript(client, 'redis-ledger-store/mark-repair');
    this.grantIds = new RedisGrantIds(client, keys, guard);
  }

  /**
   * One script (claim-12.lua): the key, the budget (net spend: the day's charges minus its refunds), the
   * operation's own daily cap (its charges that day), the charge, the job index and, in prepaid billing, the
   * hold (docs/decisions/hold-in-claim.md); with a settled x402 payment's grant, the grant first
   * (docs/decisions/x402-grant-and-hold.md). A known key is answered first. The record is
   * `<fingerprint>:<shard>:<cost>:<accepted at, ms>`; records before 0.7.0 are the fingerprint alone or (from
   * 0.4.0) `<fingerprint>:<shard>`, read as shard 0 or that shard, with no cost. On a cluster every key is in
   * the subject's slot; the grant id's claim and the indexes, in slots of their own, come before the script.
   */
  async claim(request: ClaimRequest): Promise<Claim> {
    return claimMade((await this.claimAlong(request, this.claimScript, NO_EXTRAS, claimReplyItself)).claim);
  }

  /**
   * {@link RedisLedgerStore.claim} through `script`, a script that makes the same claim on the same keys and
   * arguments and reads `more.keys` too (they follow the claim's twelve, as `more.args` follow its arguments);
   * `claimReply` finds the claim's answer in its reply, which comes back beside the claim (none when a grant's id
   * was found used before the script). A script may answer without claiming (an admission it refused): then
   * `claim` is undefined. Only a single node runs such a script: those keys are in other slots than the subject's.
   */
  async claimAlong<R>(
    request: ClaimRequest,
    script: LuaScript<R>,
    more: ClaimExtras,
    claimReply: (reply: R) => ClaimReply | undefined,
  ): Promise<{ claim: Claim | undefined; reply?: R }> {
    const grant = request.hold?.grant;
    if (grant && (await this.grantIds.prepare(grant, -1)) === 'conflict') return { claim: { outcome: 'grant_conflict', shard: 0 } };
    const day = request.day ?? utcDay();
    const { subject, jobId } = request;
    const keys = [
      this.keys.idempotency(subject, jobId),
      this.keys.subjectUsage(subject),
      this.keys.subjectJobs(subject),
      this.keys.subjectSequence(subject),
      this.keys.subjectDailySpend(subject, day),
      this.keys.subjectSpendHistory(subject),
      this.keys.subjectDailyRefunds(subject, day),
      this.keys.subjectCredits(subject),
      this.keys.subjectCreditEntries(subject),
      this.keys.creditHold(subject, jobId),
      this.keys.subjectOperationDailySpend(subject, request.operation, day),
      this.keys.subjectGrants(subject),
      ...more.keys,
    ];
    const acceptedMs = request.acceptedAt === undefined ? Date.now() : Date.parse(request.acceptedAt);
    // An entry id only where a hold may write an entry: metered claims skip the random bytes.
    const entryId = request.hold ? newId('cre') : '';
    const args = claimArgs(request, day, acceptedMs, entryId);
    if (more.args) for (const arg of more.args) args.push(arg);
    const claimed = () => script(keys, args);
    // A hold is indexed for the orphan sweep before its claim is sent (the index has its own slot on a
    // cluster): an entry without a hold costs the sweep a look, a hold without an entry could stay for good.
    const reply = await this.guard.commands(() =>
      request.hold ? this.indexHold({ subject, jobId, at: args[14] as string }, acceptedMs).then(claimed) : claimed(),
    );
    const answer = claimReply(reply);
    if (!answer) return { claim: undefined, reply };
    const claim = claimOf(answer, request.hold !== undefined, entryId);
    if (!grant || claim.outcome === 'grant_conflict') return { claim, reply };
    const granted = grantResultOf(answer.slice(5));
    return { claim: granted.outcome === 'created' ? { ...claim, granted } : claim, reply };
  }

  async dueHolds(acceptedBefore: number, limit: number): Promise<DueHold[]> {
    const members = await this.guard.commands(() =>
      this.client.zrangebyscore(this.keys.openHolds, '-inf', acceptedBefore, 'LIMIT', 0, limit),
    );
    return members.map(dueHoldOf);
  }

  /**
   * The release script in the subject's slot (release-orphan-10.lua: the repair mark's check, the hold, the
   * key's record and the usage's refund in one step), then the index entry, which is safe to drop twice; a
   * hold whose mark a retry took meanwhile keeps its entry, so that a later pass looks at it again.
   */
  async releaseOrphan(request: OrphanRequest): Promise<number> {
    const { subject, jobId } = request;
    const day = request.at.slice(0, 10);
    const keys = [
      this.keys.idempotency(subject, jobId),
      this.keys.subjectCredits(subject),
      this.keys.subjectCreditEntries(subject),
      this.keys.subjectSequence(subject),
      this.keys.creditHold(subject, jobId),
      this.keys.refund(subject, jobId),
      this.keys.subjectUsage(subject),
      this.keys.subjectDailyRefunds(subject, day),
      this.keys.subjectRefundHistory(subject),
      this.keys.holdRepair(subject, jobId),
    ];
    const args = [
      jobId,
      request.at,
      Date.parse(request.at),
      newId('cre'),
      new Date().toISOString(),
      request.ttlSeconds,
      day,
      SPEND_KEY_SECONDS,
      utcDayBefore(day, HISTORY_KEPT_DAYS - 1),
      HISTORY_KEY_SECONDS,
      request.repairMark ?? '',
    ];
    const released = Number(await this.guard.commands(() => this.releaseOrphanScript(keys, args)));
    if (released < 0) return 0;
    await this.forgetHold(request);
    return released;
  }

  /** One script in the subject's slot (mark-repair-2.lua): the key's record checked, the mark set. */
  async markRepair(request: RepairRequest): Promise<boolean> {
    const { subject, jobId } = request;
    const keys = [this.keys.idempotency(subject, jobId), this.keys.holdRepair(subject, jobId)];
    const args = [Date.parse(request.at), request.mark, request.ttlSeconds];
    return (await this.guard.commands(() => this.markRepairScript(keys, args))) === 1;
  }

  async repairMarkOf(hold: DueHold): Promise<RepairMark | undefined> {
    return (await this.guard.commands(() => this.client.get(this.keys.holdRepair(hold.subject, hold.jobId)))) ?? undefined;
  }

  async forgetHold(hold: DueHold): Promise<void> {
    await this.guard.commands(() => this.client.zrem(this.keys.openHolds, holdMember(hold)));
  }

  private async indexHold(hold: DueHold, acceptedMs: number): Promise<void> {
    await this.client.zadd(this.keys.openHolds, acceptedMs, holdMember(hold));
  }

  async isClaimed(subject: string, jobId: string): Promise<boolean> {
    return (await this.guard.commands(() => this.client.exists(this.keys.idempotency(subject, jobId)))) === 1;
  }

  async listJobIds(subject: string, query: PageQuery): Promise<Array<SeqItem<string>>> {
    const found = await this.guard.commands(() => pageBySeq(this.client, this.keys.subjectJobs(subject), query));
    return found.map(({ seq, member }) => ({ seq, value: member }));
  }

  /** Check and removal in one script (prune-2.lua): a claim of the same key in between keeps its entry. */
  async pruneJobs(subject: string, jobIds: readonly string[]): Promise<void> {
    const index = this.keys.subjectJobs(subject);
    await this.guard.commands(() => Promise.all(jobIds.map((id) => this.pruneScript([index, this.keys.idempotency(subject, id)], [id]))));
  }

  async spentOn(subject: string, day: string): Promise<number> {
    const [charged, refunded] = await this.guard.commands(() =>
      this.client.mget(this.keys.subjectDailySpend(subject, day), this.keys.subjectDailyRefunds(subject, day)),
    );
    return Number(charged ?? 0) - Number(refunded ?? 0);
  }

  async refund(request: RefundRequest): Promise<boolean> {
    const day = request.day ?? utcDay();
    const keys = [
      this.keys.refund(request.subject, request.jobId),
      this.keys.subjectUsage(request.subject),
      this.keys.subjectDailyRefunds(request.subject, day),
      this.keys.subjectRefundHistory(request.subject),
    ];
    const args = [
      request.credits,
      request.ttlSeconds,
      day,
      SPEND_KEY_SECONDS,
      utcDayBefore(day, HISTORY_KEPT_DAYS - 1),
      HISTORY_KEY_SECONDS,
      request.chargedAt,
    ];
    return (await this.guard.commands(() => this.refundScript(keys, args))) === 1;
  }

  /**
   * A day's spend key where it still exists (the last two days: the cap's own figure, and the only one for
   * charges made before the history existed), else its field in the history. On a cluster both are in the
   * subject's slot, so the `MGET` is one call there too.
   */
  async spentOnDays(subject: string, days: readonly string[]): Promise<DaySpend[]> {
    if (days.length === 0) return [];
    const [recent, history, recentRefunds, refundHistory] = await this.guard.commands(() =>
      Promise.all([
        this.client.mget(days.map((day) => this.keys.subjectDailySpend(subject, day))),
        this.client.hmget(this.keys.subjectSpendHistory(subject), ...days),
        this.client.mget(days.map((day) => this.keys.subjectDailyRefunds(subject, day))),
        this.client.hmget(this.keys.subjectRefundHistory(subject), ...days),
      ]),
    );
    return days.map((_, i) => ({
      charged: Number(recent[i] ?? history[i] ?? 0),
      refunded: Number(recentRefunds[i] ?? refundHistory[i] ?? 0),
    }));
  }

  async usage(subject: string): Promise<Usage> {
    const fields = await this.guard.commands(() => this.client.hgetall(this.keys.subjectUsage(subject)));
    return usageOf(fields.jobs_charged, fields.credits_spent, fields.credits_refunded);
  }
}

/** The claim script's grant arguments (ARGV[17] to ARGV[21]): an empty id for a claim without one. */
function grantArgs(grant: GrantRequest | undefined): Array<string | number> {
  if (!grant) return ['', '', 0, '', ''];
  return [grant.grantId, grant.fingerprint, grant.credits, newId('cre'), grant.note ?? ''];
}

/** A hold's member of the sweep's index: its subject, job id and acceptance, as JSON. */
function holdMember(hold: DueHold): string {
  return JSON.stringify([hold.subject, hold.jobId, hold.at]);
}

function dueHoldOf(member: string): DueHold {
  const [subject, jobId, at] = JSON.parse(member) as [string, string, string];
  return { subject, jobId, at };
}

/** A claim from the script's answer; anything unexpected means the script and this code disagree: refusing beats guessing about money. */
function claimOf(reply: ClaimReply, held: boolean, entryId: string): Claim {
  const [outcome, shard, third = -1, fourth = -1, fell] = reply as [string, number, number?, number?, number?];
  if (!OUTCOMES.has(outcome) || !Number.isInteger(shard)) throw new Error(`unexpected claim outcome ${String(outcome)}`);
  if (outcome === 'replayed') {
    const accepted = third >= 0 && fourth >= 0 ? { cost: third, at: new Date(fourth).toISOString() } : undefined;
    return { outcome, shard, ...(accepted ? { accepted } : {}) };
  }
  if (!held || (outcome !== 'created' && outcome !== 'insufficient')) return { outcome: outcome as ClaimOutcome, shard };
  const account = { balance: Number(third), held: Number(fourth) };
  return { outcome, shard, account, ...(Number(fell) === 1 ? { fellLowEntry: entryId } : {}) };
}

/**
 * A subject's usage from the fields of its usage hash (`credits_spent` there is what was charged); a missing
 * field (never charged, never refunded) counts 0.
 */
export function usageOf(
  jobsCharged: string | null | undefined,
  creditsCharged: string | null | undefined,
  creditsRefunded: string | null | undefined,
): Usage {
  const refunded = Number(creditsRefunded ?? 0);
  return { jobs_charged: Number(jobsCharged ?? 0), credits_spent: Number(creditsCharged ?? 0) - refunded, credits_refunded: refunded };
}

/** The claim script's arguments, in its header's order (claim-12.lua). */
function claimArgs(request: ClaimRequest, day: string, acceptedMs: number, entryId: string): Array<string | number> {
  return [
    request.fingerprint,
    request.ttlSeconds,
    request.cost,
    request.jobId,
    request.dailyLimit ?? -1,
    SPEND_KEY_SECONDS,
    request.shard ?? 0,
    day,
    utcDayBefore(day, HISTORY_KEPT_DAYS - 1),
    HISTORY_KEY_SECONDS,
    acceptedMs,
    request.hold ? 1 : 0,
    entryId,
    request.hold?.lowThreshold ?? -1,
    request.acceptedAt ?? new Date(acceptedMs).toISOString(),
    request.operationLimit ?? -1,
    ...grantArgs(request.hold?.grant),
  ];
}
