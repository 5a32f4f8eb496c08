--[[
  Expires the unspent rest of one due grant once, as one `expire` entry; a lot not yet due is left alone.
  Input:
    KEYS[1] the subject's credit account (hash: balance, held, lots)
    KEYS[2] the subject's credit entries (sorted set by sequence number)
    KEYS[3] the subject's sequence counter
    ARGV[1] grant id
    ARGV[2] id of the expire entry
    ARGV[3] when (ISO 8601)
    ARGV[4] CREDITS_LOW_THRESHOLD, -1 for none
  Output:
    {'expired', credits, balance, held, entry JSON or '', 1 when the expiry took the balance below the threshold (else 0)}:
      the lot is expired now (credits may be 0)
    {'none', 0, balance, held, '', 0}: no open lot (expired, voided, or never granted)
    {'early', 0, balance, held, '', 0}: not yet due
]]
--- @include "credit-entry"
--- @include "credit-lots"
local function account()
  local current = redis.call('HMGET', KEYS[1], 'balance', 'held')
  return tonumber(current[1] or '0'), tonumber(current[2] or '0')
end
local value = redis.call('HGET', KEYS[1], 'lot:' .. ARGV[1])
local lot = value and parseLot(ARGV[1], value)
if not lot or lot.state ~= 'open' then
  local balance, held = account()
  return {'none', 0, balance, held, '', 0}
end
if not lotIsDue(lot, nowMs()) then
  local balance, held = account()
  return {'early', 0, balance, held, '', 0}
end
local credits = lot.remaining
lot.remaining = 0
lot.state = 'expired'
writeLot(KEYS[1], lot)
local entry = ''
if credits > 0 then
  redis.call('HINCRBY', KEYS[1], 'balance', 0 - credits)
  entry = appendCreditEntry(KEYS[1], KEYS[2], KEYS[3], {id = ARGV[2], kind = 'expire', credits = credits, at = ARGV[3], grant_id = ARGV[1]})
end
local balance, held = account()
-- Decided here, atomic with the entry that crosses: once per fall, whatever lifted the balance before.
local low = tonumber(ARGV[4])
local fell = 0
if credits > 0 and low >= 0 and balance + credits >= low and balance < low then fell = 1 end
return {'expired', credits, balance, held, entry, fell}
