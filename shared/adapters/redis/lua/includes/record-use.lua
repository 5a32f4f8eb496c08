--[[
  recordUse(key, lastUsed, at, resolution): records a use of the connection whose hash is `key` at `at`
  (seconds) when `lastUsed` (the stored `last_used_at`, false when absent) is none, or not a number (it is
  rewritten rather than failing the request), or at least `resolution` seconds older. Included by the touch
  script and by the one-node admission script, which has just read the field.

  Output:
    nothing
]]
local function recordUse(key, lastUsed, at, resolution)
  if not tonumber(lastUsed) or tonumber(at) - tonumber(lastUsed) >= tonumber(resolution) then
    redis.call('HSET', key, 'last_used_at', at)
  end
end
