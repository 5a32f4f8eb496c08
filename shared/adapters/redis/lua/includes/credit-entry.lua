--[[
  appendCreditEntry(entries, sequence, id, kind, credits, at, jobId, grantId, note, reason): numbers one entry of a
  subject's credits with the subject's sequence counter and adds it, as JSON, to the subject's entries (a
  sorted set scored by that number), so that entries page like the subject's things and jobs. `jobId`,
  `grantId`, `note` and `reason` are left out of the JSON when empty (or nil). Included by every script that moves credits, before
  the credit-hold and credit-settle includes, which call it.

  Output:
    the entry's JSON
]]
local function appendCreditEntry(entries, sequence, id, kind, credits, at, jobId, grantId, note, reason)
  local entry = {id = id, kind = kind, credits = tonumber(credits), at = at}
  if jobId ~= '' then entry.job_id = jobId end
  if grantId ~= '' then entry.grant_id = grantId end
  if note ~= '' then entry.note = note end
  if reason and reason ~= '' then entry.reason = reason end
  local json = cjson.encode(entry)
  redis.call('ZADD', entries, redis.call('INCR', sequence), json)
  return json
end
