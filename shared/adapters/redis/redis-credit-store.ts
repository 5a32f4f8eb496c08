import { assertCredits } from '../../domain/credits/credit-rules';
import {
  type AccountPage,
  type CaptureRequest,
  type CreditAccount,
  type CreditEntry,
  type CreditStore,
  type CreditTotals,
  type DueGrant,
  type ExpireResult,
  type GrantRequest,
  type GrantResult,
  type HoldRequest,
  type HoldResult,
  NO_TOTALS,
  type ReleaseRequest,
  type SettleResult,
  type VoidRequest,
  type VoidResult,
} from '../../domain/credits/credit-store';
import type { PageQuery, SeqItem } from '../../platform/pagination/page';
import { newId } from '../../platform/util/ids';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisClient } from './redis-client';
import { dueMember, grantResultOf, RedisGrantIds } from './redis-grant-ids';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';
import { pageBySeq } from './sequence-page';

type GrantReply = [string, string?, number?, number?, number?];
type HoldReply = [string, number, number, number];
type SettleReply = [string, number, number, number, number];

/** The summary's figures and the account hash's fields that hold them (the credit-entry include's `total_<kind>`). */
const TOTALS: ReadonlyArray<[keyof CreditTotals, string]> = [
  ['granted', 'total_grant'],
  ['adjusted', 'total_adjustment'],
  ['captured', 'total_capture'],
  ['released', 'total_release'],
  ['expired', 'total_expire'],
  ['voided', 'total_void'],
  ['balance', 'balance'],
  ['held', 'held'],
  ['holds', 'open_holds'],
];
const TOTAL_NAMES = TOTALS.map(([name]) => name);
const TOTAL_FIELDS = TOTALS.map(([, field]) => field);

const HOLD_OUTCOMES: ReadonlySet<string> = new Set<HoldResult['outcome']>(['held', 'exists', 'insufficient']);
const SETTLE_OUTCOMES: ReadonlySet<string> = new Set<SettleResult['outcome']>(['settled', 'already', 'none']);

/**
 * The keys of a job's credits, in the order the `credit-hold` and `credit-settle` includes take them: the
 * subject's account, its entries, its sequence counter and the job's hold record. On a cluster all four are in
 * the subject's slot, with the ledger's claim keys.
 */
export function creditJobKeys(keys: RedisKeys, subject: string, jobId: string): [string, string, string, string] {
  return [...accountKeys(keys, subject), keys.creditHold(subject, jobId)];
}

/** A subject's account, its entries and its sequence counter: the first keys of every credit script. */
function accountKeys(keys: RedisKeys, subject: string): [string, string, string] {
  return [keys.subjectCredits(subject), keys.subjectCreditEntries(subject), keys.subjectSequence(subject)];
}

/** `holdCredits`' arguments after its keys: job id, price, hold entry id, acceptance, threshold (-1: none). */
export function holdArgs(request: HoldRequest, entryId: string = newId('cre')): [string, number, string, string, number] {
  assertCredits(request.credits, 'a hold');
  return [request.jobId, request.credits, entryId, request.at, request.lowThreshold ?? -1];
}

/** A hold's result from `holdCredits`' answer (outcome, balance, held, fell below) and the entry it may have written. */
export function holdResultOf(reply: readonly unknown[], request: HoldRequest, entryId: string): HoldResult {
  const [outcome, balance, held, fell] = reply as HoldReply;
  // Anything else means the script and this code disagree; refusing beats guessing about money.
  if (!HOLD_OUTCOMES.has(outcome)) throw new Error(`unexpected hold outcome ${String(outcome)}`);
  const account = { balance: Number(balance), held: Number(held) };
  if (outcome !== 'held') return { outcome: outcome as 'exists' | 'insufficient', account };
  const entry: CreditEntry | undefined =
    request.credits > 0
      ? {
          id: entryId,
          kind: 'hold',
          credits: request.credits,
          at: request.at,
          job_id: request.jobId,
          balance_after: account.balance,
          held_after: account.held,
        }
      : undefined;
  return { outcome, ...(entry ? { entry } : {}), account, fellLow: Number(fell) === 1 };
}

/**
 * Credit accounts in Redis: per subject a hash (`balance`, `held`), the entries (a sorted set by the subject's
 * sequence number, as its things and jobs), the grants (a hash by grant id) and one hold record per job, all
 * in the subject's slot; each step that moves credits is one script (`lua/redis-credit-store/`, on the
 * `credit-*` includes that the ledger's claim can share). A hold record of this acceptance, or an open one,
 * means the job holds already; a settled one of an earlier acceptance (its key reused) is replaced. A price of
 * 0 is held whatever the balance, with a record and no entry, so its job still settles once.
 *
 * Lots (`credit-lots.lua`, the rules of `shared/domain/credits/credit-lots.ts`): each positive grant's unspent
 * rest is a field `lot:<grant id>` = `<state>|<remaining>|<expiry ms, -1 none>|<order>` of the account hash,
 * state `open`, `expired` or `voided`. A hold draws from the open lot that expires first (one without expiry
 * last, older first; a lot past its expiry but not yet swept is never drawn) and its record keeps where its
 * credits came from (`<state>|<credits>|<kept>|<acceptance>|<allocation JSON>`); a release gives them back the
 * last drawn first, and what it gives to a lot expired or voided since leaves the balance at once
 * (docs/decisions/release-after-expiry.md). Each entry carries the account just after its move
 * (`balance_after`, `held_after`) and adds to the account's `total_<kind>`, which the summary reads. Times are
 * the server's (`TIME`). The expiry sweep and a void take only a lot's unspent rest, never what a job holds.
 * A void's record is the field `\x01void:<void id>` of the grants hash: the control character keeps it apart
 * from grant ids, which are printable ASCII.
 */
export class RedisCreditStore implements CreditStore {
  private readonly grantIds: RedisGrantIds;
  private readonly grantScript: LuaScript<GrantReply>;
  private readonly holdScript: LuaScript<HoldReply>;
  private readonly settleScript: LuaScript<SettleReply>;
  private readonly expireScript: LuaScript<[string, number, number, number, string, number]>;
  private readonly voidScript: LuaScript<[string, string?, number?, number?, number?]>;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {
    this.grantIds = new RedisGrantIds(client, keys, guard);
    this.grantScript = defineLuaScript(client, 'redis-credit-store/grant');
    this.holdScript = defineLuaScript(client, 'redis-credit-store/hold');
    this.settleScript = defineLuaScript(client, 'redis-credit-store/settle');
    this.expireScript = defineLuaScript(client, 'redis-credit-store/expire');
    this.voidScript = defineLuaScript(client, 'redis-credit-store/void');
  }

  /**
   * Two steps: the grant id's claim and the indexes ({@link RedisGrantIds}), then the subject's grant
   * (grant-4.lua on the `credit-grant` include), idempotent by that id: a death between them is repaired by a retry.
   */
  async grant(request: GrantRequest): Promise<GrantResult> {
    const expiresMs = request.expiresAt === undefined ? -1 : Date.parse(request.expiresAt);
    if ((await this.grantIds.prepare(request, expiresMs)) === 'conflict') return { outcome: 'conflict' };
    const keys = [...accountKeys(this.keys, request.subject), this.keys.subjectGrants(request.subject)];
    const args = [
      request.grantId,
      request.fingerprint,
      request.credits,
      newId('cre'),
      request.at ?? new Date().toISOString(),
      request.note ?? '',
      request.lowThreshold ?? -1,
      request.expiresAt ?? '',
      expiresMs,
    ];
    return grantResultOf(await this.guard.commands(() => this.grantScript(keys, args)));
  }

  async grantFingerprint(grantId: string): Promise<string | undefined> {
    const known = await this.guard.commands(() => this.client.get(this.keys.grantId(grantId)));
    return known ?? undefined;
  }

  async markSettling(markId: string, value: string, ttlSeconds: number): Promise<void> {
    await this.guard.commands(() => this.client.set(this.keys.settling(markId), value, 'EX', ttlSeconds));
  }

  async settlingMark(markId: string): Promise<string | undefined> {
    return (await this.guard.commands(() => this.client.get(this.keys.settling(markId)))) ?? undefined;
  }

  async clearSettling(markId: string): Promise<void> {
    await this.guard.commands(() => this.client.del(this.keys.settling(markId)));
  }

  async hold(request: HoldRequest): Promise<HoldResult> {
    const entryId = newId('cre');
    const args = holdArgs(request, entryId);
    const reply = await this.guard.commands(() => this.holdScript(creditJobKeys(this.keys, request.subject, request.jobId), args));
    return holdResultOf(reply, request, entryId);
  }

  capture(request: CaptureRequest): Promise<SettleResult> {
    assertCredits(request.credits, 'a capture');
    return this.settle(request, request.credits);
  }

  release(request: ReleaseRequest): Promise<SettleResult> {
    return this.settle(request, 0);
  }

  async account(subject: string): Promise<CreditAccount> {
    const [balance, held] = await this.guard.commands(() => this.client.hmget(this.keys.subjectCredits(subject), 'balance', 'held'));
    return { balance: Number(balance ?? 0), held: Number(held ?? 0) };
  }

  async subjects(limit: number, after?: string): Promise<AccountPage> {
    const min = after === undefined ? '-' : `(${after}`;
    const found = await this.guard.commands(() => this.client.zrangebylex(this.keys.creditAccounts, min, '+', 'LIMIT', 0, limit + 1));
    const subjects = found.slice(0, limit);
    return found.length > limit ? { subjects, next: subjects[subjects.length - 1] } : { subjects };
  }

  async totals(subject: string): Promise<CreditTotals> {
    const values = await this.guard.commands(() => this.client.hmget(this.keys.subjectCredits(subject), ...TOTAL_FIELDS));
    const totals: CreditTotals = { ...NO_TOTALS };
    TOTAL_NAMES.forEach((name, i) => {
      totals[name] = Number(values[i] ?? 0);
    });
    return totals;
  }

  async dueGrants(now: number, limit: number): Promise<DueGrant[]> {
    const members = await this.guard.commands(() => this.client.zrangebyscore(this.keys.creditExpiries, '-inf', now, 'LIMIT', 0, limit));
    return members.map((member) => {
      const [subject, grantId] = JSON.parse(member) as [string, string];
      return { subject, grantId };
    });
  }

  /** The expiry script in the subject's slot (expire-3.lua), then the index entry, unless the lot is not due yet by Redis's clock. */
  async expire({ subject, grantId }: DueGrant, lowThreshold?: number): Promise<ExpireResult> {
    const keys = accountKeys(this.keys, subject);
    const args = [grantId, newId('cre'), new Date().toISOString(), lowThreshold ?? -1];
    const reply = await this.guard.commands(() => this.expireScript(keys, args));
    const [outcome, credits, balance, held, entry, fell] = reply;
    if (outcome !== 'early') await this.guard.commands(() => this.client.zrem(this.keys.creditExpiries, dueMember(subject, grantId)));
    const account = { balance: Number(balance), held: Number(held) };
    return { credits: Number(credits), account, ...(entry ? { entry: JSON.parse(entry) as CreditEntry, fellLow: fell === 1 } : {}) };
  }

  /** Two steps, as a grant: the void id's claim across subjects, then the subject's void (void-4.lua), idempotent by that id. */
  async voidGrant(request: VoidRequest): Promise<VoidResult> {
    if ((await this.grantIds.claimId(this.keys.voidId(request.voidId), request.fingerprint)) === 'conflict') return { outcome: 'conflict' };
    const { subject } = request;
    const keys = [...accountKeys(this.keys, subject), this.keys.subjectGrants(subject)];
    const args = [
      request.grantId,
      request.voidId,
      request.fingerprint,
      newId('cre'),
      request.at ?? new Date().toISOString(),
      request.note ?? '',
      request.lowThreshold ?? -1,
    ];
    const [outcome, entry, balance, held, fell] = await this.guard.commands(() => this.voidScript(keys, args));
    if (outcome === 'conflict' || outcome === 'unknown') return { outcome };
    if ((outcome !== 'created' && outcome !== 'replayed') || entry === undefined)
      throw new Error(`unexpected void outcome ${String(outcome)}`);
    const account = { balance: Number(balance), held: Number(held) };
    return { outcome, entry: JSON.parse(entry) as CreditEntry, account, ...(outcome === 'created' ? { fellLow: fell === 1 } : {}) };
  }

  async entries(subject: string, query: PageQuery): Promise<Array<SeqItem<CreditEntry>>> {
    const found = await this.guard.commands(() => pageBySeq(this.client, this.keys.subjectCreditEntries(subject), query));
    return found.map(({ seq, member }) => ({ seq, value: JSON.parse(member) as CreditEntry }));
  }

  private async settle(request: ReleaseRequest, keep: number): Promise<SettleResult> {
    const args = [request.jobId, keep, newId('cre'), newId('cre'), request.at ?? new Date().toISOString(), request.ttlSeconds];
    const [outcome, captured, released, balance, held] = await this.guard.commands(() =>
      this.settleScript(creditJobKeys(this.keys, request.subject, request.jobId), args),
    );
    if (!SETTLE_OUTCOMES.has(outcome)) throw new Error(`unexpected settle outcome ${String(outcome)}`);
    const account = { balance: Number(balance), held: Number(held) };
    if (outcome === 'none') return { outcome, account };
    return { outcome: outcome as 'settled' | 'already', captured: Number(captured), released: Number(released), account };
  }
}
