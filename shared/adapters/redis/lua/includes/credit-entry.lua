--[[
  appendCreditEntry(entries, sequence, id, kind, credits, at, jobId, grantId, note): adds one entry, as JSON, to a
  subject's entries, numbered by its sequence counter; empty jobId, grantId and note are left out.
  Output:
    the entry's JSON
]]
local function appendCreditEntry(entries, sequence, id, kind, credits, at, jobId, grantId, note)
  local entry = {id = id, kind = kind, credits = tonumber(credits), at = at}
  if jobId ~= '' then entry.job_id = jobId end
  if grantId ~= '' then entry.grant_id = grantId end
  if note ~= '' then entry.note = note end
  local json = cjson.encode(entry)
  redis.call('ZADD', entries, redis.call('INCR', sequence), json)
  return json
end
