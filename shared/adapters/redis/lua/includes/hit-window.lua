--[[
  hitWindow(key, windowSeconds): counts a hit on the fixed window at `key` and starts its clock. Every script
  that hits a window includes it, so they all keep the same rules. It runs inside one script: were INCR and
  EXPIRE separate, a failure in between would leave a counter without expiry that blocks its key forever; the
  TTL < 0 branch also repairs such a key if one ever exists (EXPIRE NX, written portably for Redis before 7).

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
