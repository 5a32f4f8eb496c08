--[[
  grantCredits(account, entries, sequence, grants, grant): grants or adjusts credits once per grant id (`grant`:
  gid, fingerprint, credits, entryId, at, note, threshold, expiresAt, expiresMs); needs credit-entry, credit-lots.
  Output:
    'created', entry JSON, balance, held, 1 when the balance fell below the threshold (else 0)
    'replayed', entry JSON of the earlier grant, balance, held, 0
    'conflict' (the id names a grant with another body): nothing written
]]
local function grantCredits(account, entries, sequence, grants, grant)
  local known = redis.call('HGET', grants, grant.gid)
  if known then
    local fingerprint, entry = string.match(known, '^(%S+) (.*)$')
    if fingerprint ~= grant.fingerprint then return 'conflict' end
    local current = redis.call('HMGET', account, 'balance', 'held')
    return 'replayed', entry, tonumber(current[1] or '0'), tonumber(current[2] or '0'), 0
  end
  local credits = tonumber(grant.credits)
  local kind = 'grant'
  if credits < 0 then kind = 'adjustment' end
  local balance = redis.call('HINCRBY', account, 'balance', credits)
  if credits > 0 then
    writeLot(account, {gid = grant.gid, state = 'open', remaining = credits, expires = tonumber(grant.expiresMs), order = redis.call('INCR', sequence)})
  else
    drawLots(account, 0 - credits, nowMs())
  end
  local entry = appendCreditEntry(account, entries, sequence, {id = grant.entryId, kind = kind, credits = credits, at = grant.at, grant_id = grant.gid, note = grant.note, expires_at = grant.expiresAt})
  redis.call('HSET', grants, grant.gid, grant.fingerprint .. ' ' .. entry)
  local held = tonumber(redis.call('HGET', account, 'held') or '0')
  local low = tonumber(grant.threshold)
  local fell = 0
  if low >= 0 and balance - credits >= low and balance < low then fell = 1 end
  return 'created', entry, balance, held, fell
end
