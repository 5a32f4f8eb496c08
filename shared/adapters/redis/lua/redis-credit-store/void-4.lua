--[[
  Voids the unspent rest of a grant once per void id, as one `void` entry (never what is held or spent).
  Input:
    KEYS[1] the subject's credit account (hash: balance, held, lots)
    KEYS[2] the subject's credit entries (sorted set by sequence number)
    KEYS[3] the subject's sequence counter
    KEYS[4] the subject's grants (hash: grant id → "<fingerprint> <entry JSON>", "\1void:<void id>" → the same)
    ARGV[1] grant id
    ARGV[2] void id
    ARGV[3] fingerprint of the body
    ARGV[4] id of the void entry
    ARGV[5] when (ISO 8601)
    ARGV[6] note, '' for none
    ARGV[7] CREDITS_LOW_THRESHOLD, -1 for none
  Output:
    {'created' or 'replayed', entry JSON, balance, held, 1 when this void took the balance below the threshold (else 0)}
    {'conflict'}: the void id names a void with another body
    {'unknown'}: the subject has no positive grant with this id
]]
--- @include "credit-entry"
--- @include "credit-lots"
local function account()
  local current = redis.call('HMGET', KEYS[1], 'balance', 'held')
  return tonumber(current[1] or '0'), tonumber(current[2] or '0')
end
local field = '\1void:' .. ARGV[2]
local known = redis.call('HGET', KEYS[4], field)
if known then
  local fingerprint, entry = string.match(known, '^(%S+) (.*)$')
  if fingerprint ~= ARGV[3] then return {'conflict'} end
  local balance, held = account()
  return {'replayed', entry, balance, held, 0}
end
local value = redis.call('HGET', KEYS[1], 'lot:' .. ARGV[1])
if not value then return {'unknown'} end
local lot = parseLot(ARGV[1], value)
local credits = 0
if lot.state == 'open' then
  credits = lot.remaining
  lot.state = 'voided'
end
lot.remaining = 0
writeLot(KEYS[1], lot)
if credits > 0 then redis.call('HINCRBY', KEYS[1], 'balance', 0 - credits) end
local entry = appendCreditEntry(KEYS[1], KEYS[2], KEYS[3], {id = ARGV[4], kind = 'void', credits = credits, at = ARGV[5], grant_id = ARGV[1], void_id = ARGV[2], note = ARGV[6]})
redis.call('HSET', KEYS[4], field, ARGV[3] .. ' ' .. entry)
local balance, held = account()
-- Decided here, atomic with the entry that crosses: once per fall, whatever lifted the balance before.
local low = tonumber(ARGV[7])
local fell = 0
if credits > 0 and low >= 0 and balance + credits >= low and balance < low then fell = 1 end
return {'created', entry, balance, held, fell}
