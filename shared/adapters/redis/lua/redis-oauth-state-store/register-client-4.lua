--[[
  Registers an OAuth client under the cap, evicting the never-granted, then the ended grants, oldest first.
  Input:
    KEYS[1] the client's record (hash {v: value, c: consumed 0/1})
    KEYS[2] `oauth:client:index`: every registration, scored by its record's expiry (ms), which the cap counts
    KEYS[3] `oauth:client:unused`: registrations never granted, scored likewise
    KEYS[4] `oauth:client:granted`: registrations granted, scored by the end of their last grant (ms)
    ARGV[1] value
    ARGV[2] TTL (seconds)
    ARGV[3] cap (registrations)
    ARGV[4] now (ms)
    ARGV[5] how long a record is kept after its last grant ends (seconds)
    ARGV[6] most evictions for this registration
  Output:
    {registered: 1 or 0, evicted: how many registrations were evicted}
]]
local now = tonumber(ARGV[4])
local cap = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
-- A granted record lives until keep-after-grant past its grant's end at most, so an older member is gone.
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[5]) * 1000)
local count = redis.call('ZCARD', KEYS[2])
local evicted = 0
local tries = 0
while count >= cap and tries < tonumber(ARGV[6]) do
  tries = tries + 1
  local victim = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
  if not victim then victim = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 1)[1] end
  if not victim then break end
  redis.call('DEL', victim)
  redis.call('ZREM', KEYS[3], victim)
  redis.call('ZREM', KEYS[4], victim)
  local removed = redis.call('ZREM', KEYS[2], victim)
  count = count - removed
  evicted = evicted + removed
end
if count >= cap and evicted == 0 then return {0, 0} end
local expiry = now + tonumber(ARGV[2]) * 1000
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'c', '0')
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], expiry, KEYS[1])
redis.call('ZADD', KEYS[3], expiry, KEYS[1])
return {1, evicted}
