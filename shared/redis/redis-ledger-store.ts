import type { PageQuery, SeqItem } from '../pagination/page';
import { utcDay, type Claim, type ClaimOutcome, type ClaimRequest, type LedgerStore, type Usage } from '../stores/ledger-store';
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
 * The record is the fingerprint, followed by `:<shard>` when the job went to a shard other than 0: records
 * written before sharding existed (and every record of an unsharded deployment) read as shard 0, the queue
 * they were enqueued on. Fingerprints are base64url, so they never contain the colon.
 *
 * KEYS: idempotency record, subject usage, subject job index, subject sequence, subject's spend that day.
 * ARGV: fingerprint, retention seconds, cost, job id, daily limit (-1: none), spend key lifetime in seconds,
 * shard for a new job.
 */
const CLAIM = `
local existing = redis.call('GET', KEYS[1])
if existing then
  local fingerprint, shard = string.match(existing, '^([^:]*):?(%d*)$')
  if fingerprint == ARGV[1] then return {'replayed', tonumber(shard) or 0} end
  return {'conflict', 0}
end
local cost = tonumber(ARGV[3])
local limit = tonumber(ARGV[5])
if limit >= 0 and tonumber(redis.call('GET', KEYS[5]) or '0') + cost > limit then return {'over_budget', 0} end
local record = ARGV[1]
if ARGV[7] ~= '0' then record = record .. ':' .. ARGV[7] end
redis.call('SET', KEYS[1], record, 'EX', ARGV[2])
redis.call('HINCRBY', KEYS[2], 'jobs_charged', 1)
redis.call('HINCRBY', KEYS[2], 'credits_spent', cost)
local seq = redis.call('INCR', KEYS[4])
redis.call('ZADD', KEYS[3], seq, ARGV[4])
redis.call('INCRBY', KEYS[5], cost)
redis.call('EXPIRE', KEYS[5], ARGV[6])
return {'created', tonumber(ARGV[7])}
`;

/** A day's spend is read until that day ends; two days covers it whatever the time of the first charge. */
const SPEND_KEY_SECONDS = 2 * 86_400;

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

const OUTCOMES: ReadonlySet<string> = new Set<ClaimOutcome>(['created', 'replayed', 'conflict', 'over_budget']);

/** Idempotency records, charges and the per-subject job index in Redis. */
export class RedisLedgerStore implements LedgerStore {
  private readonly claimScript: LuaScript<[string, number]>;
  private readonly pruneScript: LuaScript<number>;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {
    this.claimScript = defineLuaScript(client, 'ledger_claim', 5, CLAIM);
    this.pruneScript = defineLuaScript(client, 'ledger_prune', 2, PRUNE);
  }

  async claim(request: ClaimRequest): Promise<Claim> {
    const keys = [
      this.keys.idempotency(request.subject, request.jobId),
      this.keys.subjectUsage(request.subject),
      this.keys.subjectJobs(request.subject),
      this.keys.subjectSequence(request.subject),
      this.keys.subjectDailySpend(request.subject, request.day ?? utcDay()),
    ];
    const args = [request.fingerprint, request.ttlSeconds, request.cost, request.jobId, request.dailyLimit ?? -1, SPEND_KEY_SECONDS, request.shard ?? 0];
    const [outcome, shard] = await this.guard.commands(() => this.claimScript(keys, args));
    // Anything else means the script and this code disagree; refusing beats guessing about money.
    if (!OUTCOMES.has(outcome) || !Number.isInteger(shard)) throw new Error(`unexpected claim outcome ${String(outcome)}`);
    return { outcome: outcome as ClaimOutcome, shard };
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
    return Number((await this.guard.commands(() => this.client.get(this.keys.subjectDailySpend(subject, day)))) ?? 0);
  }

  async usage(subject: string): Promise<Usage> {
    const fields = await this.guard.commands(() => this.client.hgetall(this.keys.subjectUsage(subject)));
    return usageOf(fields.jobs_charged, fields.credits_spent);
  }
}

/** A subject's usage from the two fields of its usage hash; a missing field (never charged) counts 0. */
export function usageOf(jobsCharged: string | null | undefined, creditsSpent: string | null | undefined): Usage {
  return { jobs_charged: Number(jobsCharged ?? 0), credits_spent: Number(creditsSpent ?? 0) };
}
