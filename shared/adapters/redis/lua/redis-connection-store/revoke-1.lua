--[[
  Revokes a connection by check-and-set, so two replicas revoking it count it once.
  Input:
    KEYS[1] the connection hash
  Output:
    1 revoked now, 0 already revoked, -1 no such connection
]]
local revoked = redis.call('HGET', KEYS[1], 'revoked')
if revoked == '0' then
  redis.call('HSET', KEYS[1], 'revoked', '1')
  return 1
end
if not revoked then return -1 end
return 0
