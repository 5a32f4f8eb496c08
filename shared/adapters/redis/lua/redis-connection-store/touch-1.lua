--[[
  Records a use of an existing connection (includes/record-use.lua).
  Input:
    KEYS[1] the connection hash
    ARGV[1] now (seconds)
    ARGV[2] last-use resolution (seconds)
  Output:
    1 the connection exists, 0 it does not
]]
--- @include "record-use"
local conn = redis.call('HMGET', KEYS[1], 'subject', 'last_used_at')
if not conn[1] then return 0 end
recordUse(KEYS[1], conn[2], ARGV[1], ARGV[2])
return 1
