--[[
  The claim of a paid job, as one script: Redis runs it without interleaving any other command, so among any
  number of concurrent claims for the same job, on any number of replicas, exactly one finds no record and only
  that one charges and indexes the job; and among concurrent claims of distinct jobs, the budget check and the
  charge cannot be separated, so the daily limit is never overshot. The record and the charge cannot be
  separated by a crash either: a script is applied whole or not at all. A known key is answered before the
  budget is looked at: a replay names a job that was already paid for.

  The record is `<fingerprint>:<shard>:<cost>:<accepted at, ms>`: the shard a replay finds the job on, and the
  charge a replay that must enqueue the job (the first call died before it did) makes it with, so a replay
  never recomputes the price. Records written by releases before 0.7.0 are the fingerprint alone, or (from
  0.4.0) followed by `:<shard>` when the job went to a shard other than 0: the former read as shard 0 (the
  queue they were enqueued on), and neither holds a charge.
  Fingerprints are base64url, so they never contain the colon.

  The day's spend key is what the cap reads (and what every release wrote); it lives two days. The subject's
  spend history (one hash, a field per day) copies the day's new total in the same step, so the two never
  disagree and a day partly charged before the history existed (by a release before 0.4.0) is whole in it. A day's first
  charge also drops the days the history no longer shows and extends its life: once a day per subject.

  The cap counts net spend: the day's charges minus the day's refunds (their own key, written by refund-4.lua).

  In prepaid billing (ARGV[12] = 1) the same step holds the job's price on the subject's credit account
  (credit-hold include): after the replay and budget checks, before any write, so a balance below the price
  refuses the job with nothing recorded ('insufficient'), and a replay is answered before funds are looked at.
  The account, its entries and the hold record are the subject's keys, in the claim's slot on a cluster; the
  entries are numbered with the subject's sequence counter (KEYS[4]), as its jobs are. In metered billing
  (ARGV[12] = 0) KEYS[8..10] are not touched. Releases before 0.8.0 ran this script as claim-7.lua, without
  the three credit keys: their records read the same here.

  Input:
    KEYS[1] the job's idempotency record
    KEYS[2] the subject's usage hash
    KEYS[3] the subject's job index (sorted set by sequence number)
    KEYS[4] the subject's sequence counter
    KEYS[5] the subject's spend that day
    KEYS[6] the subject's spend history (hash, a field per day)
    KEYS[7] the subject's refunds that day
    KEYS[8] the subject's credit account (hash: balance, held)
    KEYS[9] the subject's credit entries (sorted set by sequence number)
    KEYS[10] the job's hold record
    ARGV[1] payload fingerprint
    ARGV[2] record retention (seconds)
    ARGV[3] cost (credits)
    ARGV[4] job id
    ARGV[5] daily limit (credits), -1 for none
    ARGV[6] lifetime of the day's spend key (seconds)
    ARGV[7] shard for a new job
    ARGV[8] the day (YYYY-MM-DD)
    ARGV[9] the oldest day the history keeps (YYYY-MM-DD)
    ARGV[10] lifetime of the history (seconds)
    ARGV[11] accepted at (ms)
    ARGV[12] 1 to hold the cost on the credit account (prepaid billing), 0 not to
    ARGV[13] id of the hold entry
    ARGV[14] CREDITS_LOW_THRESHOLD, -1 for none
    ARGV[15] accepted at (ISO 8601): the hold's acceptance and its entry's time
  Output:
    {'created', shard, balance, held, 1 when the hold took the balance below the threshold (else 0)}:
      balance and held are -1 without a hold
    {'replayed', shard, recorded cost or -1, recorded acceptance time (ms) or -1}
    {'conflict', 0}: the key was used with another payload
    {'over_budget', 0}
    {'insufficient', 0, balance, held}: the balance is below the cost; nothing was recorded
]]
--- @include "day-history"
--- @include "credit-entry"
--- @include "credit-lots"
--- @include "credit-hold"
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
local balance, held, fell = -1, -1, 0
if ARGV[12] == '1' then
  local outcome
  outcome, balance, held, fell = holdCredits(KEYS[8], KEYS[9], KEYS[4], KEYS[10], ARGV[4], ARGV[3], ARGV[13], ARGV[15], ARGV[14])
  if outcome == 'insufficient' then return {'insufficient', 0, balance, held} end
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[7] .. ':' .. ARGV[3] .. ':' .. ARGV[11], 'EX', ARGV[2])
redis.call('HINCRBY', KEYS[2], 'jobs_charged', 1)
redis.call('HINCRBY', KEYS[2], 'credits_spent', cost)
local seq = redis.call('INCR', KEYS[4])
redis.call('ZADD', KEYS[3], seq, ARGV[4])
local spent = redis.call('INCRBY', KEYS[5], cost)
redis.call('EXPIRE', KEYS[5], ARGV[6])
keepDayTotal(KEYS[6], ARGV[8], spent, ARGV[9], ARGV[10])
return {'created', tonumber(ARGV[7]), balance, held, fell}
