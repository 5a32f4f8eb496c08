--[[
  hitWindow(key, windowSeconds): counts a hit on the fixed window at `key` and starts its clock, in one step, so
  no counter is left without expiry (a TTL below 0 is repaired).
  Output:
    the window's count after this hit, and its TTL in seconds
]]
local function hitWindow(key, windowSeconds)
  local count = redis.call('INCR', key)
  local ttl = redis.call('TTL', key)
  if ttl < 0 then
    redis.call('EXPIRE', key, windowSeconds)
    ttl = tonumber(windowSeconds)
  end
  return count, ttl
end
