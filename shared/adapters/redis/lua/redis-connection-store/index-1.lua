--[[
  Adds a connection to its subject's index, which lives as long as its longest-lived member.
  Input:
    KEYS[1] the subject's connection index (set of connection ids)
    ARGV[1] connection id
    ARGV[2] expires_at (seconds)
    ARGV[3] now (seconds)
  Output:
    1
]]
redis.call('SADD', KEYS[1], ARGV[1])
local ttl = tonumber(ARGV[2]) - tonumber(ARGV[3])
if ttl > redis.call('TTL', KEYS[1]) then redis.call('EXPIRE', KEYS[1], math.max(ttl, 1)) end
return 1
