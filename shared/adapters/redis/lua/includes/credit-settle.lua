--[[
  settleCredits(account, entries, sequence, hold, jobId, keep, captureId, releaseId, at, lifetime, reason): ends
  a job's open hold once (capture `keep`, release the rest); needs credit-entry and credit-lots.
  Output:
    outcome ('settled', 'already' or 'none'), the credits captured and released (0 and 0 for 'none')
]]
-- Credits a release gave back to lots already expired or voided leave the balance at once, one entry each.
local function leaveLots(account, entries, sequence, releaseId, at, parts)
  local n = 0
  for _, kind in ipairs({'expire', 'void'}) do
    for _, part in ipairs(parts[kind]) do
      n = n + 1
      redis.call('HINCRBY', account, 'balance', 0 - part[2])
      appendCreditEntry(account, entries, sequence, {id = releaseId .. '_' .. n, kind = kind, credits = part[2], at = at, grant_id = part[1]})
    end
  end
end

local function settleCredits(account, entries, sequence, hold, jobId, keep, captureId, releaseId, at, lifetime, reason)
  local record = redis.call('GET', hold)
  if not record then return 'none', 0, 0 end
  local state, credits, kept, heldAt, allocation = string.match(record, '^(%a+)|(%d+)|(%d+)|([^|]*)|?(.*)$')
  credits, kept = tonumber(credits), tonumber(kept)
  if state ~= 'held' then return 'already', kept, credits - kept end
  local captured = math.min(credits, math.max(0, math.floor(tonumber(keep))))
  local released = credits - captured
  redis.call('SET', hold, 'settled|' .. credits .. '|' .. captured .. '|' .. heldAt, 'EX', lifetime)
  if credits > 0 then redis.call('HINCRBY', account, 'open_holds', -1) end
  -- One move per entry, each entry written just after its own move, so each carries the account right after it.
  if captured > 0 then
    redis.call('HINCRBY', account, 'held', 0 - captured)
    appendCreditEntry(account, entries, sequence, {id = captureId, kind = 'capture', credits = captured, at = at, job_id = jobId})
  end
  if released > 0 then
    redis.call('HINCRBY', account, 'held', 0 - released)
    redis.call('HINCRBY', account, 'balance', released)
    appendCreditEntry(account, entries, sequence, {id = releaseId, kind = 'release', credits = released, at = at, job_id = jobId, reason = reason})
    if allocation ~= '' then
      local expired, voided = giveBackLots(account, cjson.decode(allocation), released)
      leaveLots(account, entries, sequence, releaseId, at, {expire = expired, void = voided})
    end
  end
  return 'settled', captured, released
end
