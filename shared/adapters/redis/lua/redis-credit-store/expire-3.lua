--[[
  Expires the unspent rest of one due grant once, as one `expire` entry; a lot not yet due is left alone.
  Input:
    KEYS[1] the subject's credit account (hash: balance, held, lots)
    KEYS[2] the subject's credit entries (sorted set by sequence number)
    KEYS[3] the subject's sequence counter
    ARGV[1] grant id
    ARGV[2] id of the expire entry
    ARGV[3] when (ISO 8601)
  Output:
    {'expired', credits, balance, held, entry JSON or ''}: the lot is expired now (credits may be 0)
    {'none', 0, balance, held, ''}: no open lot (expired, voided, or never granted)
    {'early', 0, balance, held, ''}: not yet due
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
  return {'none', 0, balance, held, ''}
end
if not lotIsDue(lot, nowMs()) then
  local balance, held = account()
  return {'early', 0, balance, held, ''}
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
return {'expired', credits, balance, held, entry}
