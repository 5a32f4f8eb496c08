--[[
  appendCreditEntry(account, entries, sequence, entry): adds one entry, as JSON, to a subject's entries, numbered
  by its sequence counter, with balance_after, held_after and its kind's running total; empty fields left out.
  Output:
    the entry's JSON
]]
local function appendCreditEntry(account, entries, sequence, entry)
  local record = {id = entry.id, kind = entry.kind, credits = tonumber(entry.credits), at = entry.at}
  for _, field in ipairs({'job_id', 'grant_id', 'expires_at', 'void_id', 'note', 'reason'}) do
    if entry[field] and entry[field] ~= '' then record[field] = entry[field] end
  end
  local current = redis.call('HMGET', account, 'balance', 'held')
  record.balance_after = tonumber(current[1] or '0')
  record.held_after = tonumber(current[2] or '0')
  redis.call('HINCRBY', account, 'total_' .. entry.kind, record.credits)
  local json = cjson.encode(record)
  redis.call('ZADD', entries, redis.call('INCR', sequence), json)
  return json
end
