--[[
  settleCredits(account, entries, sequence, hold, jobId, keep, captureId, releaseId, at, lifetime): ends a job's
  open hold once, capturing `keep` credits of it and releasing the rest; needs credit-entry.
  Output:
    outcome ('settled', 'already' or 'none'), the credits captured and released (0 and 0 for 'none')
]]
local function settleCredits(account, entries, sequence, hold, jobId, keep, captureId, releaseId, at, lifetime)
  local record = redis.call('GET', hold)
  if not record then return 'none', 0, 0 end
  local state, credits, kept, heldAt = string.match(record, '^(%a+)|(%d+)|(%d+)|(.*)$')
  credits, kept = tonumber(credits), tonumber(kept)
  if state ~= 'held' then return 'already', kept, credits - kept end
  local captured = math.min(credits, math.max(0, math.floor(tonumber(keep))))
  local released = credits - captured
  redis.call('SET', hold, 'settled|' .. credits .. '|' .. captured .. '|' .. heldAt, 'EX', lifetime)
  redis.call('HINCRBY', account, 'held', 0 - credits)
  if released > 0 then redis.call('HINCRBY', account, 'balance', released) end
  if captured > 0 then appendCreditEntry(entries, sequence, captureId, 'capture', captured, at, jobId, '', '') end
  if released > 0 then appendCreditEntry(entries, sequence, releaseId, 'release', released, at, jobId, '', '') end
  return 'settled', captured, released
end
