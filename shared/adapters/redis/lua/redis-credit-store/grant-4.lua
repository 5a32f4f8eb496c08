--[[
  Grants or adjusts a subject's credits once per grant id, recording the grant, its entry and its lot.
  Input:
    KEYS[1] the subject's credit account (hash: balance, held)
    KEYS[2] the subject's credit entries (sorted set by sequence number)
    KEYS[3] the subject's sequence counter
    KEYS[4] the subject's grants (hash: grant id → "<fingerprint> <entry JSON>")
    ARGV[1] grant id
    ARGV[2] fingerprint of the body
    ARGV[3] credits (negative: an adjustment)
    ARGV[4] id of the entry
    ARGV[5] when (ISO 8601)
    ARGV[6] note, '' for none
    ARGV[7] CREDITS_LOW_THRESHOLD, -1 for none
    ARGV[8] a positive grant's expiry (ISO 8601), '' for none
    ARGV[9] the same expiry (ms), -1 for none
  Output:
    {'created', entry JSON, balance, held, 1 when the balance fell below the threshold (else 0)}
    {'replayed', entry JSON of the earlier grant, balance, held}
    {'conflict'}
]]
--- @include "credit-entry"
--- @include "credit-lots"
local known = redis.call('HGET', KEYS[4], ARGV[1])
if known then
  local fingerprint, entry = string.match(known, '^(%S+) (.*)$')
  if fingerprint ~= ARGV[2] then return {'conflict'} end
  local account = redis.call('HMGET', KEYS[1], 'balance', 'held')
  return {'replayed', entry, tonumber(account[1] or '0'), tonumber(account[2] or '0')}
end
local credits = tonumber(ARGV[3])
local kind = 'grant'
if credits < 0 then kind = 'adjustment' end
local balance = redis.call('HINCRBY', KEYS[1], 'balance', credits)
if credits > 0 then
  writeLot(KEYS[1], {gid = ARGV[1], state = 'open', remaining = credits, expires = tonumber(ARGV[9]), order = redis.call('INCR', KEYS[3])})
else
  drawLots(KEYS[1], 0 - credits, nowMs())
end
local entry = appendCreditEntry(KEYS[1], KEYS[2], KEYS[3], {id = ARGV[4], kind = kind, credits = credits, at = ARGV[5], grant_id = ARGV[1], note = ARGV[6], expires_at = ARGV[8]})
redis.call('HSET', KEYS[4], ARGV[1], ARGV[2] .. ' ' .. entry)
local held = tonumber(redis.call('HGET', KEYS[1], 'held') or '0')
local low = tonumber(ARGV[7])
local fell = 0
if low >= 0 and balance - credits >= low and balance < low then fell = 1 end
return {'created', entry, balance, held, fell}
