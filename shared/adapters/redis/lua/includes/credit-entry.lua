--[[
  appendCreditEntry(account, entries, sequence, entry): numbers one entry of a subject's credits with the
  subject's sequence counter and adds it, as JSON, to the subject's entries (a sorted set scored by that
  number), so that entries page like the subject's things and jobs. `entry` is a table: id, kind, credits, at,
  and job_id, grant_id, expires_at, void_id, note, reason when not empty. Called after the entry's move is applied to the account
  hash: the entry carries the account just after it (`balance_after`, `held_after`), and the account's
  running total of its kind (`total_<kind>`, what the summary adds up) grows by its credits. Included by
  every script that moves credits, before the credit-hold and credit-settle includes, which call it.

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
