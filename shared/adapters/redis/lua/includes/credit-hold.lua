--[[
  holdCredits(account, entries, sequence, hold, jobId, credits, entryId, at, threshold): moves a job's price from
  `balance` to `held` once per acceptance (drawn from the lots), or writes nothing; needs credit-entry, credit-lots.
  Output:
    outcome ('held', 'exists' or 'insufficient'), the balance and held credits after it, and 1 when a hold
    made the balance fall below the threshold (0 otherwise)
]]
local function holdCredits(account, entries, sequence, hold, jobId, credits, entryId, at, threshold)
  local current = redis.call('HMGET', account, 'balance', 'held')
  local balance, held = tonumber(current[1] or '0'), tonumber(current[2] or '0')
  local record = redis.call('GET', hold)
  if record then
    local state, heldAt = string.match(record, '^(%a+)|%d+|%d+|([^|]*)')
    if state == 'held' or heldAt == at then return 'exists', balance, held, 0 end
  end
  local price = tonumber(credits)
  -- Credits of grants past their expiry stay in the balance until the sweep expires them, but are not spendable.
  local now = nowMs()
  if price > 0 and balance - dueLotCredits(account, now) < price then return 'insufficient', balance, held, 0 end
  local allocation = drawLots(account, price, now)
  -- SET without EX: an earlier acceptance's settled record loses its expiry along with its content. `0 - price`,
  -- not `-price`: Lua writes minus zero as -0, which HINCRBY refuses. The allocation follows the acceptance.
  redis.call('SET', hold, 'held|' .. price .. '|0|' .. at .. '|' .. cjson.encode(allocation))
  balance = redis.call('HINCRBY', account, 'balance', 0 - price)
  held = redis.call('HINCRBY', account, 'held', price)
  if price > 0 then
    redis.call('HINCRBY', account, 'open_holds', 1)
    appendCreditEntry(account, entries, sequence, {id = entryId, kind = 'hold', credits = price, at = at, job_id = jobId})
  end
  local low = tonumber(threshold)
  local fell = 0
  if low >= 0 and balance + price >= low and balance < low then fell = 1 end
  return 'held', balance, held, fell
end
