--[[
  keepDayTotal(history, day, total, oldestDay, lifetime): writes a day's new total into a subject's history hash;
  a day's first write also drops the days before oldestDay and extends the history's life.
  Output:
    nothing
]]
local function keepDayTotal(history, day, total, oldestDay, lifetime)
  if redis.call('HSET', history, day, total) == 1 then
    for _, kept in ipairs(redis.call('HKEYS', history)) do
      if kept < oldestDay then redis.call('HDEL', history, kept) end
    end
    redis.call('EXPIRE', history, lifetime)
  end
end
