--[[
  recordUse(key, lastUsed, at, resolution): records a use of the connection hash `key` at `at` (seconds) when
  `lastUsed` is absent, not a number, or at least `resolution` seconds older.
  Output:
    nothing
]]
local function recordUse(key, lastUsed, at, resolution)
  if not tonumber(lastUsed) or tonumber(at) - tonumber(lastUsed) >= tonumber(resolution) then
    redis.call('HSET', key, 'last_used_at', at)
  end
end
