import type { PageQuery, SeqItem } from '../../platform/pagination/page';
import {
  SPEND_HISTORY_DAYS,
  utcDay,
  utcDayBefore,
  type Claim,
  type ClaimOutcome,
  type ClaimRequest,
  type DaySpend,
  type LedgerStore,
  type RefundRequest,
  type Usage,
} from '../../domain/ledger/ledger-store';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisClient } from './redis-client';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';
import { pageBySeq } from './sequence-page';

/**
 * The claim, as one script: Redis runs it without interleaving any other command, so among any number of
 * concurrent claims for the same job, on any number of replicas, exactly one finds no record and only that
 * one charges and indexes the job; and among concurrent claims of distinct jobs, the budget check and the
 * charge cannot be separated, so the daily limit is never overshot. The record and the charge cannot be
 * separated by a crash either: a script is applied whole or not at all. A known key is answered before the
 * budget is looked at: a replay names a job that was already paid for.
 *
 * The record is `<fingerprint>:<shard>:<cost>:<accepted at, ms>`: the shard a replay finds the job on, and
 * the charge a replay that must enqueue the job (the first call died before it did) makes it with, so a
 * replay never recomputes the price. Records written by releases before 0.7.0 are the fingerprint alone, or
 * (from 0.4.0) followed by `:<shard>` when the job went to a shard other than 0: the former read as shard 0
 * (the queue they were enqueued on), and neither holds a charge. Fingerprints are base64url, so they never contain the colon.
 *
 * The day's spend key is what the cap reads (and what every release wrote); it lives two days. The subject's
 * spend history (one hash, a field per day) copies the day's new total in the same step, so the two never
 * disagree and a day partly charged before the history existed (by a release before 0.4.0) is whole in it. A day's first
 * charge also drops the days the history no longer shows and extends its life: once a day per subject.
 *
 * The cap counts net spend: the day's charges minus the day's refunds (its own key, written by REFUND).
 *
 * KEYS: idempotency record, subject usage, subject job index, subject sequence, subject's spend that day,
 * subject's spend history, subject's refunds that day.
 * ARGV: fingerprint, retention seconds, cost, job id, daily limit (-1: none), spend key lifetime in seconds,
 * shard for a new job, the day, the oldest day the history keeps, history lifetime in seconds, accepted at (ms).
 * Answers the outcome, the shard, and on a replay the recorded cost and acceptance time (-1: not recorded).
 */
const CLAIM = `
local existing = redis.call('GET', KEYS[1])
if existing then
  local fingerprint, shard, cost, at = string.match(existing, '^([^:]*):?(%d*):?(%d*):?(%d*)$')
  if fingerprint == ARGV[1] then return {'replayed', tonumber(shard) or 0, tonumber(cost) or -1, tonumber(at) or -1} end
  return {'conflict', 0}
end
local cost = tonumber(ARGV[3])
local limit = tonumber(ARGV[5])
if limit >= 0 and tonumber(redis.call('GET', KEYS[5]) or '0') - tonumber(redis.call('GET', KEYS[7]) or '0') + cost > limit then
  return {'over_budget', 0}
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[7] .. ':' .. ARGV[3] .. ':' .. ARGV[11], 'EX', ARGV[2])
redis.call('HINCRBY', KEYS[2], 'jobs_charged', 1)
redis.call('HINCRBY', KEYS[2], 'credits_spent', cost)
local seq = redis.call('INCR', KEYS[4])
redis.call('ZADD', KEYS[3], seq, ARGV[4])
local spent = redis.call('INCRBY', KEYS[5], cost)
redis.call('EXPIRE', KEYS[5], ARGV[6])
if redis.call('HSET', KEYS[6], ARGV[8], spent) == 1 then
  for _, day in ipairs(redis.call('HKEYS', KEYS[6])) do
    if day < ARGV[9] then redis.call('HDEL', KEYS[6], day) end
  end
  redis.call('EXPIRE', KEYS[6], ARGV[10])
end
return {'created', tonumber(ARGV[7])}
`;

/** A day's spend is read until that day ends; two days covers it whatever the time of the first charge. */
const SPEND_KEY_SECONDS = 2 * 86_400;
/**
 * The history keeps its shown days and one more (a day that began between reading the clock and the claim);
 * it outlives the first charge of its newest day by that many days and one.
 */
const HISTORY_KEPT_DAYS = SPEND_HISTORY_DAYS + 1;
const HISTORY_KEY_SECONDS = (HISTORY_KEPT_DAYS + 1) * 86_400;

/**
 * Drops a job from the subject's index only while its idempotency record is absent, in one step: a new
 * claim of the same key (same job id) between a separate check and removal would otherwise lose its entry.
 *
 * KEYS: subject job index, idempotency record. ARGV: job id.
 */
const PRUNE = `
if redis.call('EXISTS', KEYS[2]) == 0 then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
`;

/**
 * A job's refund, exactly once: the record (holding the charge it refunds) is written only if it does not
 * already hold this charge, and with it, in the same script, the usage, the day's refunds and the refund
 * history change; a second call finds the record and changes nothing.
 *
 * KEYS: refund record, subject usage, subject's refunds that day, subject's refund history.
 * ARGV: credits, record lifetime in seconds, the day, day key lifetime, oldest day kept, history lifetime,
 * the charge refunded.
 */
const REFUND = `
if redis.call('GET', KEYS[1]) == ARGV[7] then return 0 end
redis.call('SET', KEYS[1], ARGV[7], 'EX', ARGV[2])
local credits = tonumber(ARGV[1])
redis.call('HINCRBY', KEYS[2], 'credits_refunded', credits)
local refunded = redis.call('INCRBY', KEYS[3], credits)
redis.call('EXPIRE', KEYS[3], ARGV[4])
if redis.call('HSET', KEYS[4], ARGV[3], refunded) == 1 then
  for _, day in ipairs(redis.call('HKEYS', KEYS[4])) do
    if day < ARGV[5] then redis.call('HDEL', KEYS[4], day) end
  end
  redis.call('EXPIRE', KEYS[4], ARGV[6])
end
return 1
`;

const OUTCOMES: ReadonlySet<string> = new Set<ClaimOutcome>(['created', 'replayed', 'conflict', 'over_budget']);

/** Idempotency records, charges and the per-subject job index in Redis. */
export class RedisLedgerStore implements LedgerStore {
  private readonly claimScript: LuaScript<[string, number, number?, number?]>;
  private readonly pruneScript: LuaScript<number>;
  private readonly refundScript: LuaScript<number>;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {
    this.claimScript = defineLuaScript(client, 'ledger_claim', 7, CLAIM);
    this.refundScript = defineLuaScript(client, 'ledger_refund', 4, REFUND);
    this.pruneScript = defineLuaScript(client, 'ledger_prune', 2, PRUNE);
  }

  async claim(request: ClaimRequest): Promise<Claim> {
    const day = request.day ?? utcDay();
    const keys = [
      this.keys.idempotency(request.subject, request.jobId),
      this.keys.subjectUsage(request.subject),
      this.keys.subjectJobs(request.subject),
      this.keys.subjectSequence(request.subject),
      this.keys.subjectDailySpend(request.subject, day),
      this.keys.subjectSpendHistory(request.subject),
      this.keys.subjectDailyRefunds(request.subject, day),
    ];
    const oldestKept = utcDayBefore(day, HISTORY_KEPT_DAYS - 1);
    const args = [
      request.fingerprint,
      request.ttlSeconds,
      request.cost,
      request.jobId,
      request.dailyLimit ?? -1,
      SPEND_KEY_SECONDS,
      request.shard ?? 0,
      day,
      oldestKept,
      HISTORY_KEY_SECONDS,
      request.acceptedAt === undefined ? Date.now() : Date.parse(request.acceptedAt),
    ];
    const [outcome, shard, cost = -1, at = -1] = await this.guard.commands(() => this.claimScript(keys, args));
    // Anything else means the script and this code disagree; refusing beats guessing about money.
    if (!OUTCOMES.has(outcome) || !Number.isInteger(shard)) throw new Error(`unexpected claim outcome ${String(outcome)}`);
    const accepted = cost >= 0 && at >= 0 ? { cost, at: new Date(at).toISOString() } : undefined;
    return { outcome: outcome as ClaimOutcome, shard, ...(accepted ? { accepted } : {}) };
  }

  async listJobIds(subject: string, query: PageQuery): Promise<Array<SeqItem<string>>> {
    const found = await this.guard.commands(() => pageBySeq(this.client, this.keys.subjectJobs(subject), query));
    return found.map(({ seq, member }) => ({ seq, value: member }));
  }

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
   * charges made by a release before 0.4.0, which kept no history), else its field in the history. On a cluster both are in the
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
